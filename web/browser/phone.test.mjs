// What a player reads on a phone (issue 31), clicked as a player would, so that reading the
// screen naturally never records a wrong result: a double Swiss pairing reported in the
// player's own terms with each game's colour (stored White's result first: 1-0 then 0-1,
// shown as two wins on the phone and 2–0 on the projector and the console); a bye asked
// from the phone for a later round, seen booked, cancelled, and booked from the console;
// an evening's game page naming its evening, round and board with the way back, no
// rematch, and game 2 offered after game 1; moves typed as players write them over the
// board, and a refused one that leaves no clock to press. Screenshots at desktop and phone
// width go to web/screenshots/.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createGame, eventApi, shot, startBrowser, startServer, waitState, DESKTOP, PHONE, openPage as openPageOf } from './harness.mjs';

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await startBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

function openPage(path, viewport = DESKTOP) {
  return openPageOf(browser, server.base, path, viewport);
}

const api = (method, path, token, body) => eventApi(server.base, method, path, token, body);

async function evening(body, players) {
  const ev = await api('POST', '/api/events', null, body);
  const added = await api('POST', `/api/events/${ev.id}/players`, ev.director_token, { players });
  const link = Object.fromEntries(added.players.map((p) => [p.name, p.link]));
  const token = Object.fromEntries(added.players.map((p) => [p.name, p.token]));
  const number = Object.fromEntries(added.players.map((p) => [p.name, p.number]));
  return { ...ev, link, token, number };
}

/** A page at both widths: the desktop screenshot, then the phone one. */
async function shots(page, name) {
  await page.setViewportSize(DESKTOP);
  await shot(page, `${name}-desktop`, true);
  await page.setViewportSize(PHONE);
  await shot(page, `${name}-phone`, true);
}

const text = async (loc) => (await loc.textContent()).replace(/\s+/g, ' ').trim();

test("a double Swiss pairing reported in each player's own terms: I won twice is stored 1-0 then 0-1 and shown as two wins", async () => {
  const ev = await evening(
    { name: 'Double Swiss night', format: 'double-swiss', rounds: 3, time_control: 'G/3;d2', rules: 'fide-b3', play: 'board', confirm: 'both', check_in: false },
    // Four players: board 2 still plays, so the projector keeps the pairings up.
    [
      { name: 'Ann', rating: 2000 },
      { name: 'Bo', rating: 1900 },
      { name: 'Cy', rating: 1800 },
      { name: 'Di', rating: 1700 },
    ],
  );
  const r1 = await api('POST', `/api/events/${ev.id}/rounds`, ev.director_token);
  const b = r1.boards[0];
  // The winner is the board's White: White in game 1, Black in game 2.
  const winner = b.white.name;
  const loser = b.black.name;
  const win = await openPage(ev.link[winner], PHONE);
  const lose = await openPage(ev.link[loser], PHONE);
  const projector = await openPage(ev.urls.projector, DESKTOP);
  const director = await openPage(ev.urls.director, DESKTOP);

  // Each game asked with the player's colour in it, in the player's words.
  const g1 = win.page.getByRole('group', { name: 'game 1, you are White' });
  const g2 = win.page.getByRole('group', { name: 'game 2, you are Black' });
  await g1.waitFor();
  assert.equal(await text(g1.locator('.which')), 'Game 1 — you are White:');
  assert.equal(await text(g2.locator('.which')), 'Game 2 — you are Black:');
  assert.deepEqual(await g1.locator('button.pick').allTextContents(), ['I won', 'I lost', 'Draw']);
  assert.match(await text(win.page.locator('.pairing')), new RegExp(`You play ${loser} \\(\\d+\\) twice: White in game 1, Black in game 2\\.`));
  assert.equal(await win.page.getByText('White’s result first').count(), 0, 'no White-first notation asked of a player');
  await g1.getByRole('button', { name: 'I won' }).click();
  await g2.getByRole('button', { name: 'I won' }).click();
  await g2.locator('button.pick[aria-pressed="true"]', { hasText: 'I won' }).waitFor();
  await g1.locator('button.pick[aria-pressed="true"]', { hasText: 'I won' }).waitFor();
  await shots(win.page, 'phone-report-double');
  await win.page.setViewportSize(PHONE);
  await win.page.click('button.send-report');
  await win.page.locator('.reported', { hasText: 'You reported: Game 1 (White): won; Game 2 (Black): won.' }).waitFor();

  // The loser's phone: Black in game 1, White in game 2; "I lost" twice.
  const l1 = lose.page.getByRole('group', { name: 'game 1, you are Black' });
  const l2 = lose.page.getByRole('group', { name: 'game 2, you are White' });
  await l1.getByRole('button', { name: 'I lost' }).click();
  await l2.getByRole('button', { name: 'I lost' }).click();
  await lose.page.click('button.send-report');

  // Two wins on the winner's phone, two losses on the loser's, with the colours.
  await win.page.locator('.myresult', { hasText: 'Result: Game 1 (White): won; Game 2 (Black): won' }).waitFor();
  await lose.page.locator('.myresult', { hasText: 'Result: Game 1 (Black): lost; Game 2 (White): lost' }).waitFor();
  // Stored as the notation is: each game's White first.
  const stored = await api('GET', `/api/events/${ev.id}/rounds/1`);
  assert.deepEqual(stored.boards[0].results, ['1-0', '0-1']);
  // The projector: the match score, never "1–0 0–1".
  const cell = projector.page.locator('.pj-pairings tr[data-board="1"] td.res');
  await projector.page.locator('.pj-pairings tr[data-board="1"].done').waitFor();
  assert.equal(await text(cell), '2–0');
  assert.equal(await cell.getAttribute('title'), `game 1: ${winner} (White) won; game 2: ${winner} (Black) won`);
  // The console: the match score and each game with who had White.
  const res = director.page.locator('table.pairings tr[data-board="1"] td.result');
  await res.filter({ hasText: '2–0' }).waitFor();
  assert.equal(await text(res), `2–0 (game 1: ${winner} (White) won; game 2: ${winner} (Black) won)`);
  // Its entry names who wins each game: game 2's 0–1 is the winner's.
  assert.equal(await director.page.locator('#res-1-1-0 option:checked').textContent(), `1–0 (${winner} wins)`);
  assert.equal(await director.page.locator('#res-1-1-1 option:checked').textContent(), `0–1 (${winner} wins)`);
  // The venue page: who has White in game 1, and the match score.
  const venue = await openPage(ev.urls.join, PHONE);
  const line = venue.page.locator('li.join-board[data-board="1"]');
  await line.waitFor();
  await line.filter({ hasText: 'match 2–0' }).waitFor();
  assert.equal(await text(line.locator('.pair')), `${winner} – ${loser} (${winner} White in game 1, ${loser} in game 2) · match 2–0`);
  await shots(venue.page, 'phone-venue-match');
  assert.deepEqual(venue.errors, []);
  await venue.ctx.close();
  await shots(win.page, 'phone-result-double');
  await shots(lose.page, 'phone-result-double-loser');
  await shots(projector.page, 'phone-projector-match');
  await shots(director.page, 'phone-console-match');
  for (const p of [win, lose, projector, director]) assert.deepEqual(p.errors, []);
  for (const p of [win, lose, projector, director]) await p.ctx.close();
});

test('a bye asked from the phone for a later round, seen booked and cancelled; the console books any later round and kind', async () => {
  const ev = await evening(
    { name: 'Swiss night', format: 'swiss', rounds: 4, time_control: 'G/5;d0', rules: 'fide-b3', play: 'board', confirm: 'one', check_in: false },
    [
      { name: 'Cy', rating: 1800 },
      { name: 'Di', rating: 1700 },
      { name: 'Ed', rating: 1600 },
      { name: 'Flo', rating: 1500 },
    ],
  );
  await api('POST', `/api/events/${ev.id}/rounds`, ev.director_token);
  const cy = await openPage(ev.link.Cy, PHONE);
  const byes = cy.page.locator('section.byes');
  await byes.locator('.allowed', { hasText: 'This evening (Swiss) allows a half-point, zero-point or full-point bye, asked before its round is paired.' }).waitFor();
  // Only the rounds not yet paired are offered.
  assert.deepEqual(await byes.locator('select[name="round"] option').allTextContents(), ['round 2', 'round 3', 'round 4']);
  await byes.getByRole('combobox', { name: 'round of the bye' }).selectOption('3');
  await byes.getByRole('radio', { name: 'zero-point bye (no points)' }).check();
  await shots(cy.page, 'phone-bye-ask');
  await cy.page.setViewportSize(PHONE);
  await byes.getByRole('button', { name: 'Ask for the bye' }).click();
  const booked = byes.locator('p.booked[data-round="3"]');
  await booked.waitFor();
  assert.equal(await text(booked.locator('span')), 'Booked: a zero-point bye (no points) in round 3.');
  await cy.page.locator('.notice', { hasText: 'Your bye in round 3 is booked.' }).waitFor();
  // The round is no longer offered; the server has it.
  assert.deepEqual(await byes.locator('select[name="round"] option').allTextContents(), ['round 2', 'round 4']);
  const me = await api('GET', `/api/events/${ev.id}/me`, ev.token.Cy);
  assert.deepEqual(me.byes, { 3: 'zero' });
  // The console sees it, and offers every later round and each kind the format allows.
  const director = await openPage(ev.urls.director, DESKTOP);
  const row = director.page.locator('tr[data-player]', { has: director.page.locator('.name', { hasText: 'Cy' }) });
  await row.locator('.status', { hasText: 'zero bye in round 3' }).waitFor();
  await shots(cy.page, 'phone-bye-booked');
  await cy.page.setViewportSize(PHONE);
  await booked.getByRole('button', { name: 'Cancel the bye in round 3' }).click();
  await booked.waitFor({ state: 'detached' });
  await row.locator('.status', { hasText: 'zero bye' }).waitFor({ state: 'detached' });
  assert.deepEqual((await api('GET', `/api/events/${ev.id}/me`, ev.token.Cy)).byes, {});

  const dRow = director.page.locator('tr[data-player]', { has: director.page.locator('.name', { hasText: 'Di' }) });
  assert.deepEqual(await dRow.getByRole('combobox', { name: 'Bye round: Di' }).locator('option').allTextContents(), ['round 2', 'round 3', 'round 4']);
  assert.deepEqual(await dRow.getByRole('combobox', { name: 'Bye kind: Di' }).locator('option').allTextContents(), ['Half-point bye', 'Zero-point bye', 'Full-point bye']);
  await dRow.getByRole('combobox', { name: 'Bye round: Di' }).selectOption('4');
  await dRow.getByRole('combobox', { name: 'Bye kind: Di' }).selectOption('full');
  await dRow.getByRole('button', { name: 'Book the bye: Di' }).click();
  await dRow.locator('.status', { hasText: 'full bye in round 4' }).waitFor();
  await dRow.getByRole('button', { name: 'Cancel the bye in round 4: Di' }).waitFor();
  // Di's phone shows it booked before round 4 is paired.
  const di = await openPage(ev.link.Di, PHONE);
  await di.page.locator('section.byes p.booked[data-round="4"]', { hasText: 'full-point bye (scored as a win) in round 4' }).waitFor();
  await shots(director.page, 'phone-console-byes');
  for (const p of [cy, director, di]) assert.deepEqual(p.errors, []);
  for (const p of [cy, director, di]) await p.ctx.close();

  // A round robin takes none, and the phone says so.
  const rr = await evening(
    { name: 'Round robin', format: 'round-robin', time_control: 'G/5;d0', rules: 'fide-b3', play: 'board', check_in: false },
    [
      { name: 'Gil', rating: 1800 },
      { name: 'Hal', rating: 1700 },
    ],
  );
  const gil = await openPage(rr.link.Gil, PHONE);
  await gil.page.locator('section.byes .allowed', { hasText: 'This evening is a round robin: it takes no byes (a game not played is a forfeit).' }).waitFor();
  assert.equal(await gil.page.locator('form.ask-bye').count(), 0);
  assert.deepEqual(gil.errors, []);
  await gil.ctx.close();
});

test("an evening's game names its evening, round and board, links back, offers no rematch and game 2 after game 1", async () => {
  const ev = await evening(
    { name: 'Server night', format: 'double-swiss', rounds: 3, time_control: 'G/5;d0', rules: 'uscf-2020', play: 'server', mode: 'otb', check_in: false },
    [
      { name: 'Ivy', rating: 2000 },
      { name: 'Jon', rating: 1900 },
    ],
  );
  const r1 = await api('POST', `/api/events/${ev.id}/rounds`, ev.director_token);
  const b = r1.boards[0];
  const [game1, game2] = b.games;
  const ivyWhite = b.white.name === 'Ivy';
  const ivyC1 = ivyWhite ? 'White' : 'Black';
  const ivyC2 = ivyWhite ? 'Black' : 'White';
  const ivy = await openPage(ev.link.Ivy, PHONE);
  // Game 1 to play, with the colour; game 2 waits for it.
  await ivy.page.getByRole('link', { name: `Play game 1 (you are ${ivyC1})` }).waitFor();
  assert.equal(await ivy.page.getByRole('link', { name: /Play game 2/ }).count(), 0);
  await ivy.page.locator('.next-game', { hasText: `Game 2 (you are ${ivyC2}) opens here when game 1 ends.` }).waitFor();
  await shots(ivy.page, 'phone-server-round');
  await ivy.page.setViewportSize(PHONE);
  await ivy.page.getByRole('link', { name: `Play game 1 (you are ${ivyC1})` }).click();
  await ivy.page.waitForURL(new RegExp(`/play/${game1}\\?token=`));
  // The game page names the evening, round, board and game, and links back.
  const bar = ivy.page.locator('nav.evening-bar');
  await bar.waitFor();
  assert.equal(await text(bar.locator('.evening-where')), 'Server night · round 1 · board 1 · game 1 of 2');
  assert.equal(await bar.getByRole('link', { name: 'Back to your evening' }).getAttribute('href'), `/events/${ev.id}/player?token=${ev.token.Ivy}`);
  await shots(ivy.page, 'phone-evening-game');
  await ivy.page.setViewportSize(PHONE);

  // Her evening page open beside the game (another device): it follows without a reload.
  const beside = await openPage(ev.link.Ivy, DESKTOP);
  await beside.page.locator('.next-game').waitFor();
  // Ivy resigns game 1: no rematch, game 2 offered, the way back.
  await ivy.page.click('button.resign');
  await ivy.page.locator('button.resign.confirm').click();
  await waitState(server.base, game1, (s) => s.result !== '*', 'the resignation');
  await ivy.page.locator('section.evening-after').waitFor();
  assert.equal(await ivy.page.getByRole('button', { name: /rematch/i }).count(), 0, 'no rematch under an evening game');
  assert.equal(await ivy.page.locator('section.rematch').count(), 0);
  const next = ivy.page.getByRole('link', { name: 'Play game 2' });
  assert.equal(await next.getAttribute('href'), `/play/${game2}?token=${ev.token.Ivy}`);
  await shots(ivy.page, 'phone-evening-game-over');
  // The evening page beside it has the result as soon as the game ended, and game 2.
  await beside.page.locator('.myresult', { hasText: `Result: Game 1 (${ivyC1}): lost` }).waitFor();
  await beside.page.getByRole('link', { name: `Play game 2 (you are ${ivyC2})` }).waitFor();
  assert.deepEqual(beside.errors, []);
  await beside.ctx.close();
  await ivy.page.setViewportSize(PHONE);

  // Back on her evening page: game 1's result in her terms, game 2 offered.
  await ivy.page.locator('section.evening-after').getByRole('link', { name: 'Back to your evening' }).click();
  await ivy.page.waitForURL(new RegExp(`/events/${ev.id}/player\\?token=`));
  await ivy.page.locator('.myresult', { hasText: `Result: Game 1 (${ivyC1}): lost; Game 2 (${ivyC2}): not in yet` }).waitFor();
  const play2 = ivy.page.getByRole('link', { name: `Play game 2 (you are ${ivyC2})` });
  await play2.waitFor();
  assert.equal(await ivy.page.getByRole('link', { name: /Play game 1/ }).count(), 0);
  await shots(ivy.page, 'phone-server-after-game1');
  await ivy.page.setViewportSize(PHONE);
  await play2.click();
  await ivy.page.waitForURL(new RegExp(`/play/${game2}\\?token=`));
  await ivy.page.locator('nav.evening-bar .evening-where', { hasText: 'game 2 of 2' }).waitFor();
  assert.deepEqual(ivy.errors, []);
  await ivy.ctx.close();
});

test('moves typed over the board as players write them; a refused one leaves no clock to press', async () => {
  const g = await createGame(server.base, { rules: 'uscf-2020', time_control: 'G/5;d0', white: 'Kim', black: 'Lou', mode: 'otb' });
  const white = await openPage(g.urls.white, DESKTOP);
  const black = await openPage(g.urls.black, PHONE);
  for (const p of [white, black]) await p.page.locator('.clock.bottom .time').waitFor();
  let ply = 0;
  /** Types `san` on `page`, waits for it on the board, and presses the clock with the button. */
  const typeAndPress = async (page, san, uci) => {
    await page.fill('#moveinput', san);
    await page.press('#moveinput', 'Enter');
    await page.locator('.press.ready').waitFor();
    await page.click('button.press');
    ply += 1;
    const st = await waitState(server.base, g.id, (s) => s.moves.length === ply, san);
    assert.equal(st.moves[ply - 1].uci, uci, JSON.stringify(st.moves[ply - 1]));
  };
  await typeAndPress(white.page, 'e4', 'e2e4');
  await typeAndPress(black.page, 'd5', 'd7d5');
  await typeAndPress(white.page, 'exd5', 'e4d5');
  await typeAndPress(black.page, 'Nf6', 'g8f6');
  await typeAndPress(white.page, 'Nf3', 'g1f3');
  await typeAndPress(black.page, 'Nxd5', 'f6d5');
  await typeAndPress(white.page, 'Be2', 'f1e2');
  await typeAndPress(black.page, 'e6', 'e7e6');
  await typeAndPress(white.page, 'O-O', 'e1g1');

  // Black types a move the position refuses (the knight on d5 blocks the queen).
  const before = await waitState(server.base, g.id, (s) => s.running === 'black', "Black's clock running");
  await black.page.fill('#moveinput', 'Qd4');
  await black.page.press('#moveinput', 'Enter');
  const refused = black.page.locator('.typed-refused');
  await refused.waitFor();
  assert.match(await text(refused), /^Move not played: "Qd4" is not a legal move for Black here/);
  assert.match(await text(refused), /the clock can be pressed once you make one/);
  // The clock cannot be pressed with no move on the board: the button is off and the space bar does nothing.
  assert.equal(await black.page.locator('button.press').isDisabled(), true);
  await black.page.locator('body').press('Space');
  await black.page.locator('.notice', { hasText: 'No move is on the board' }).waitFor();
  const after = await getStateNow(g.id);
  assert.equal(after.n, before.n, 'nothing stored');
  assert.equal(after.running, 'black');
  assert.equal(after.rulings.length, before.rulings.length, 'no penalty');
  await shots(black.page, 'phone-otb-typed-refused');
  await black.page.setViewportSize(PHONE);
  // The move typed right: on the board, and the clock is pressed.
  await typeAndPress(black.page, 'Be7', 'f8e7');
  assert.equal(await black.page.locator('.typed-refused').count(), 0);
  await shots(white.page, 'phone-otb-typed');
  for (const p of [white, black]) assert.deepEqual(p.errors, []);
  for (const p of [white, black]) await p.ctx.close();
});

async function getStateNow(id) {
  const r = await fetch(`${server.base}/api/games/${id}`);
  return r.json();
}
