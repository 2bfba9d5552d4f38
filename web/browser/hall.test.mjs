// The evening read from the back of a hall and from a phone (issue 31, items 13 and 14,
// and the Broadcast source): a 30-player Swiss on a 1920x1080 projector (15 boards, long
// names, the standings in columns), scores and tiebreaks written one way on every page,
// the console's standings on a phone, the smaller wordings (byes, a withdrawn player,
// the games' links, the dispute card's game, a draw offer on a phone, a quick time
// control that changes the ruleset, a player's rank), and the Broadcast source URL the
// console shows, fetched as lichess would. Each read from the page as a person reads it:
// a cell cut off is one whose text is wider than the cell.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DESKTOP, PHONE, createGame, eventApi, openPage, shot, startBrowser, startServer } from './harness.mjs';

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

const PROJECTOR = { width: 1920, height: 1080 };

const api = (method, path, token, body) => eventApi(server.base, method, path, token, body);

/** Thirty players, four of them with the long names a hall has. */
const THIRTY = [
  'Alexandra Konstantinopoulou-Vasquez',
  'Maximilian von Hohenzollern-Sigmaringen',
  'Oluwaseun Adebayo-Okonkwo',
  'Bartholomew Fitzgerald-Montgomery',
  ...Array.from({ length: 26 }, (_, i) => `Player ${String.fromCharCode(65 + i)}. Example`),
].map((name, i) => ({ name, rating: 2300 - 25 * i }));

/** A result per board: wins, losses and draws spread over the boards. */
const resultOf = (r, b) => ['1-0', '1/2', '0-1', '1/2', '1-0'][(r * 3 + b) % 5];

async function evening(body, players) {
  const ev = await api('POST', '/api/events', null, body);
  const added = await api('POST', `/api/events/${ev.id}/players`, ev.director_token, { players });
  ev.links = Object.fromEntries(added.players.map((p) => [p.name, p.link ?? p.url ?? p.player_url]));
  ev.added = added.players;
  return ev;
}

async function playRound(ev, r) {
  const round = await api('POST', `/api/events/${ev.id}/rounds`, ev.director_token);
  for (const b of round.boards) await api('POST', `/api/events/${ev.id}/rounds/${r}/boards/${b.board}/result`, ev.director_token, { result: resultOf(r, b.board) });
  return round;
}

/**
 * The table cells of `sel` whose text is cut off, with their text: wider than the cell
 * (scrollWidth past clientWidth), or reaching into its padding, where "..." is drawn.
 */
function cutCells(page, sel) {
  return page.$$eval(sel, (cells) =>
    cells
      .filter((c) => {
        if (c.scrollWidth > c.clientWidth + 1) return true;
        const range = document.createRange();
        range.selectNodeContents(c);
        const text = range.getBoundingClientRect();
        const pad = parseFloat(getComputedStyle(c).paddingRight) || 0;
        return text.width > 0 && text.right > c.getBoundingClientRect().right - pad + 0.5;
      })
      .map((c) => c.textContent),
  );
}

/** The cells of `sel` cut off once the type has settled (the fit to width takes a few frames; at most 3 s). */
async function cutOnceSettled(page, sel) {
  const until = Date.now() + 3000;
  let cut = await cutCells(page, sel);
  while (cut.length && Date.now() < until) {
    await page.waitForTimeout(100);
    cut = await cutCells(page, sel);
  }
  return cut;
}

/** Rows of `sel` not wholly on the screen. */
function offScreen(page, sel) {
  return page.$$eval(sel, (rows) =>
    rows
      .filter((r) => {
        const b = r.getBoundingClientRect();
        return b.top < 0 || b.bottom > window.innerHeight + 0.5 || b.left < 0 || b.right > window.innerWidth + 0.5;
      })
      .map((r) => r.textContent),
  );
}

/** A score as every page writes it: whole, or with ½; never a decimal. */
const SCORE = /^(\d+½?|½)$/;

/** Each tiebreak column of a table of standings, its cells' texts. */
async function tiebreakColumns(table) {
  const heads = await table.locator('thead th').allTextContents();
  const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.children).map((td) => td.textContent)));
  return heads.map((h, i) => ({ name: h, cells: rows.map((r) => r[i]) }));
}

/** A tiebreak column is decimals with the same places down the column, never ½. */
function assertTiebreakColumn(col) {
  const values = col.cells.filter((c) => c !== '–');
  for (const v of values) assert.match(v, /^-?\d+(\.\d{1,2})?$/, `${col.name}: ${v}`);
  const places = new Set(values.map((v) => (v.split('.')[1] ?? '').length));
  assert.ok(places.size <= 1, `${col.name}: one number of places down the column: ${values.join(' ')}`);
}

test('a 1920x1080 projector: 15 boards with long names whole, 30 standings rows in columns, scores with ½ and tiebreaks as decimals', async () => {
  const ev = await evening({ name: 'Hall open', format: 'swiss', rounds: 5, time_control: 'G/5;d0', rules: 'fide-b3', play: 'board', check_in: false }, THIRTY);
  const big = await openPage(browser, server.base, ev.urls.projector, PROJECTOR);
  await big.page.getByText('30 players entered').waitFor();

  // Round 1 paired: its 15 boards on one screen, no name cut off.
  await playRound(ev, 1);
  await big.page.getByRole('heading', { name: 'Standings after round 1 of 5' }).waitFor();
  const r2 = await api('POST', `/api/events/${ev.id}/rounds`, ev.director_token);
  assert.equal(r2.boards.length, 15);
  await big.page.getByRole('heading', { name: 'Round 2 of 5: pairings' }).waitFor();
  assert.equal(await big.page.locator('.pj-pairings tbody tr').count(), 15, 'every board on the screen');
  assert.equal(await big.page.locator('.pj-page').count(), 0, 'no second page');
  assert.deepEqual(await offScreen(big.page, '.pj-pairings tbody tr'), []);
  assert.deepEqual(await cutOnceSettled(big.page, '.pj-pairings td'), [], 'no cell of the pairings cut off');
  const shown = [...(await big.page.locator('.pj-pairings td.white .name').allTextContents()), ...(await big.page.locator('.pj-pairings td.black .name').allTextContents())];
  for (const long of THIRTY.slice(0, 4).map((p) => p.name)) assert.ok(shown.includes(long), `${long} on the screen`);
  const font = await big.page.locator('main.projector').evaluate((m) => parseFloat(m.style.fontSize));
  assert.ok(font >= 28, `type readable from the back of the hall: ${font}px`);
  await shot(big.page, 'hall-pairings-1080p');

  // Round 2's results: the standings, 30 rows on one screen in two columns.
  for (const b of r2.boards) await api('POST', `/api/events/${ev.id}/rounds/2/boards/${b.board}/result`, ev.director_token, { result: resultOf(2, b.board) });
  await big.page.getByRole('heading', { name: 'Standings after round 2 of 5' }).waitFor();
  assert.deepEqual(await cutOnceSettled(big.page, '.pj-standings td'), [], 'no cell of the standings cut off (a tiebreak "49.7..")');
  const tables = big.page.locator('.pj-standings');
  assert.equal(await tables.count(), 2, 'the standings in two columns');
  assert.equal(await big.page.locator('.pj-standings tbody tr').count(), 30, 'all 30 rows');
  assert.equal(await big.page.locator('.pj-page').count(), 0, 'no second page');
  assert.deepEqual(await offScreen(big.page, '.pj-standings tbody tr'), [], 'every row on the screen');
  const [left, right] = await tables.evaluateAll((ts) => ts.map((t) => t.getBoundingClientRect().toJSON()));
  assert.ok(right.left >= left.right, 'side by side');
  assert.deepEqual(await cutCells(big.page, '.pj-standings td'), [], 'no cell of the standings cut off (a tiebreak "49.7..")');
  assert.deepEqual(await cutCells(big.page, '.pj-standings th'), [], 'no heading cut off');
  const st = await api('GET', `/api/events/${ev.id}/standings`);
  const pts = await big.page.locator('.pj-standings td.pts').allTextContents();
  for (const p of pts) assert.match(p, SCORE);
  assert.ok(pts.some((p) => p.endsWith('½')), 'halves in the scores');
  assert.deepEqual(pts, st.rows.map((r) => (r.points === 0.5 ? '½' : String(r.points).replace('.5', '½'))));
  for (const t of [0, 1]) {
    const cols = await tiebreakColumns(tables.nth(t));
    for (const col of cols.slice(3)) assertTiebreakColumn(col);
  }
  await shot(big.page, 'hall-standings-1080p');

  // The same standings at desktop and phone width: nothing cut off, nothing wider than the screen.
  const desk = await openPage(browser, server.base, ev.urls.projector, DESKTOP);
  await desk.page.getByRole('heading', { name: 'Standings after round 2 of 5' }).waitFor();
  assert.deepEqual(await cutOnceSettled(desk.page, '.pj-standings td'), []);
  await shot(desk.page, 'hall-standings-desktop');
  const phone = await openPage(browser, server.base, ev.urls.projector, PHONE);
  await phone.page.getByRole('heading', { name: 'Standings after round 2 of 5' }).waitFor();
  assert.ok(await phone.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scroll on a phone');
  for (const p of await phone.page.locator('.pj-standings td.pts').allTextContents()) assert.match(p, SCORE);
  await shot(phone.page, 'hall-standings-phone', true);

  // The printed standings name the tiebreaks, write halves the same way; the crosstable's points too.
  const print = await openPage(browser, server.base, `/events/${ev.id}/print/standings`, DESKTOP);
  const note = await print.page.locator('.pr-note').first().textContent();
  assert.doesNotMatch(note, /docs\/events\.md/);
  for (const t of st.tiebreaks) assert.match(note, new RegExp(`${t.replace(/[-/+]/g, '\\$&')}: [A-Za-z]`), note);
  for (const p of await print.page.locator('.pr-standings tbody tr td:nth-child(4)').allTextContents()) assert.match(p, SCORE);
  await shot(print.page, 'hall-print-standings');
  const cross = await openPage(browser, server.base, `/events/${ev.id}/print/crosstable`, DESKTOP);
  await cross.page.locator('.pr-cross tbody tr').first().waitFor();
  for (const p of await cross.page.locator('.pr-cross tbody td:last-child').allTextContents()) assert.match(p, SCORE, 'crosstable points ("0½" was written)');
  await shot(cross.page, 'hall-print-crosstable');

  for (const p of [big, desk, phone, print, cross]) {
    assert.deepEqual(p.errors, []);
    await p.ctx.close();
  }
});

test("the console: standings that fit a phone, one wording of byes, a withdrawn player, the games' links apart, the Broadcast URL that fetches the round's PGN", async () => {
  const five = ['Ann Archer', 'Ben Brook', 'Cleo Craig', 'Dan Dale', 'Eve Evans'].map((name, i) => ({ name, rating: 1900 - 40 * i }));
  const ev = await evening({ name: 'Console night', format: 'swiss', rounds: 3, time_control: 'G/5;d0', rules: 'fide-b3', play: 'board', check_in: false }, five);
  const r1 = await playRound(ev, 1);
  assert.ok(r1.bye?.length, 'five players: one unpaired');
  const unpaired = r1.bye[0];
  const cons = await openPage(browser, server.base, ev.urls.director, DESKTOP);
  const phone = await openPage(browser, server.base, ev.urls.director, PHONE);
  const proj = await openPage(browser, server.base, ev.urls.projector, DESKTOP);
  for (const p of [cons, phone]) await p.page.locator('section.standings tbody tr').first().waitFor();
  // The round's unpaired player in the same words on the console and the projector.
  await cons.page.locator('p.byes', { hasText: `${unpaired.name} (${unpaired.number}), bye (unpaired)` }).waitFor();
  await proj.page.getByRole('button', { name: 'Pairings' }).click();
  await proj.page.locator('.pj-byes', { hasText: `${unpaired.name} ${unpaired.number}: bye (unpaired)` }).waitFor();

  // The console's standings on a phone: inside the screen, no figure cut off, halves as ½.
  const table = phone.page.locator('table.standings');
  const fits = await table.evaluate((t) => t.getBoundingClientRect().right <= document.documentElement.clientWidth + 0.5);
  assert.ok(fits, 'the standings table fits the phone');
  assert.ok(await phone.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scroll');
  assert.deepEqual(await cutCells(phone.page, 'table.standings td'), []);
  for (const p of await phone.page.locator('table.standings td.pts').allTextContents()) assert.match(p, SCORE);
  for (const col of (await tiebreakColumns(table)).slice(3)) assertTiebreakColumn(col);
  await phone.page.locator('section.standings').screenshot({ path: `${process.cwd()}/screenshots/hall-console-standings-phone.png` });

  // Dan withdraws: round 2 says "withdrawn", not a bye.
  await api('POST', `/api/events/${ev.id}/players/4/withdraw`, ev.director_token, {});
  const r2 = await api('POST', `/api/events/${ev.id}/rounds`, ev.director_token);
  // The round lists him among those not paired (as absent): the pages say why.
  assert.ok((r2.bye ?? []).some((b) => b.number === 4), JSON.stringify(r2.bye));
  await cons.page.locator('p.byes', { hasText: 'Dan Dale (4), withdrawn' }).waitFor();
  assert.doesNotMatch(await cons.page.locator('p.byes').textContent(), /Dan Dale \(4\), (bye|absent)/);
  await proj.page.locator('.pj-byes', { hasText: 'Dan Dale 4: withdrawn' }).waitFor();
  await shot(proj.page, 'hall-projector-byes-desktop');

  // The Broadcast source: the URL shown, `{}` for the round, and a sentence on its use.
  const section = cons.page.locator('section.broadcast');
  await section.scrollIntoViewIfNeeded();
  const url = await section.locator('input#broadcast-url').inputValue();
  assert.equal(url, `${server.base}/api/events/${ev.id}/export/pgn?round={}`);
  assert.match(await section.textContent(), /lichess.*Broadcast.*\{\}/s);
  // As lichess fetches it (round 1, no token): every game of the round with its result.
  const fetched = await cons.page.evaluate(async (u) => {
    const r = await fetch(u.replace('{}', '1'), { credentials: 'omit' });
    return { status: r.status, type: r.headers.get('content-type'), text: await r.text() };
  }, url);
  assert.equal(fetched.status, 200);
  assert.match(fetched.type, /chess-pgn/);
  assert.equal((fetched.text.match(/\[Round "1\.\d+"\]/g) ?? []).length, r1.boards.length);
  for (const b of r1.boards) assert.match(fetched.text, new RegExp(`\\[White "${b.white.name}"\\]`));
  await shot(cons.page, 'hall-console-desktop', true);
  await section.screenshot({ path: `${process.cwd()}/screenshots/hall-console-broadcast-desktop.png` });
  await phone.page.locator('section.broadcast').scrollIntoViewIfNeeded();
  await phone.page.locator('section.broadcast').screenshot({ path: `${process.cwd()}/screenshots/hall-console-broadcast-phone.png` });
  const sectionFits = await phone.page.locator('section.broadcast').evaluate((s) => s.scrollWidth <= s.clientWidth + 1);
  assert.ok(sectionFits, 'the URL and its Copy button fit a phone');

  for (const p of [cons, phone, proj]) {
    assert.deepEqual(p.errors, []);
    await p.ctx.close();
  }
});

test("a double Swiss on the server's boards: the games' links apart, the dispute card names the game; a draw offer on a phone says who offers", async () => {
  const ev = await evening({ name: 'Server doubles', format: 'double-swiss', rounds: 2, time_control: 'G/5;d0', rules: 'uscf-2020', play: 'server', mode: 'otb', check_in: false }, [
    { name: 'Ann', rating: 1800 },
    { name: 'Bo', rating: 1700 },
  ]);
  const cons = await openPage(browser, server.base, ev.urls.director, DESKTOP);
  const round = await api('POST', `/api/events/${ev.id}/rounds`, ev.director_token);
  const links = cons.page.locator('table.pairings tr[data-board="1"] a.gamelink');
  await links.nth(1).waitFor();
  assert.deepEqual(await links.allTextContents(), ['Game 1 console', 'Game 2 console']);
  const [a, b] = await links.evaluateAll((ls) => ls.map((l) => l.getBoundingClientRect().toJSON()));
  assert.ok(b.top >= a.bottom - 0.5, 'one link under the other, not run together');
  const phoneCons = await openPage(browser, server.base, ev.urls.director, PHONE);
  await phoneCons.page.locator('table.pairings a.gamelink').nth(1).waitFor();
  await shot(phoneCons.page, 'hall-console-gamelinks-phone');

  // Game 2 of the board: its Black calls the director; the card says which game.
  const game2 = round.boards[0].games[1];
  const black2 = round.boards[0].white.name; // colours reversed in game 2
  const token = ev.added.find((p) => p.name === black2).token;
  const blackPage = await openPage(browser, server.base, `/play/${game2}?token=${token}`, PHONE);
  await blackPage.page.locator('.clock.bottom .time').waitFor();
  // Game 2's White (Bo) plays 1. d4 and presses the clock first.
  const white2 = round.boards[0].black.name;
  const whitePage = await openPage(browser, server.base, `/play/${game2}?token=${ev.added.find((p) => p.name === white2).token}`, DESKTOP);
  await whitePage.page.locator('.clock.bottom .time').waitFor();
  await whitePage.page.fill('#moveinput', 'd2d4');
  await whitePage.page.press('#moveinput', 'Enter');
  await whitePage.page.locator('.press.ready').waitFor();
  await whitePage.page.locator('body').press('Space');
  await blackPage.page.locator('.clock.bottom.running').waitFor();
  await blackPage.page.fill('#callreason', 'the clock is broken');
  await blackPage.page.click('button.call-director');
  const card = cons.page.locator(`.dispute[data-game="${game2}"]`);
  await card.waitFor();
  assert.equal(await card.locator('h3').textContent(), `Round 1, board 1, game 2 of 2: ${round.boards[0].black.name} – ${black2}`);
  // The move in SAN, as a scoresheet has it (it was "1.d2d4").
  await card.locator('.movelist', { hasText: 'Moves: 1.d4' }).waitFor();
  await card.screenshot({ path: `${process.cwd()}/screenshots/hall-console-dispute-desktop.png` });

  // An online game: White offers a draw; Black's phone says who offers before Accept and Decline.
  const g = await createGame(server.base, { rules: 'fide-b3', time_control: '3+2', mode: 'online', white: 'Ada', black: 'Bao' });
  const white = await openPage(browser, server.base, g.urls.white, DESKTOP);
  const black = await openPage(browser, server.base, g.urls.black, PHONE);
  for (const p of [white, black]) await p.page.locator('.clock.bottom .time').waitFor();
  await white.page.click('.offers button.offer');
  const offer = black.page.locator('.offers .offer-from');
  await offer.waitFor();
  assert.equal(await offer.textContent(), 'Ada (white) offers a draw:');
  await black.page.locator('.offers button.accept').waitFor();
  const [words, accept] = await Promise.all([offer.boundingBox(), black.page.locator('.offers button.accept').boundingBox()]);
  assert.ok(words.y < accept.y, 'the words above the buttons');
  await black.page.locator('.offers').screenshot({ path: `${process.cwd()}/screenshots/hall-draw-offer-phone.png` });
  await shot(black.page, 'hall-game-draw-offer-phone', true);

  for (const p of [cons, phoneCons, blackPage, whitePage, white, black]) {
    assert.deepEqual(p.errors, []);
    await p.ctx.close();
  }
});

test("a player's rank: none before a round is complete, then of every player, counting one who joins", async () => {
  const players = Array.from({ length: 11 }, (_, i) => ({ name: `Club Player ${i + 1}`, rating: 1800 - 10 * i }));
  const ev = await evening({ name: 'Ranked', format: 'swiss', rounds: 3, time_control: 'G/5;d0', rules: 'fide-b3', play: 'board', check_in: false }, players);
  const link = ev.added[0].link ?? ev.added[0].url;
  assert.ok(link, JSON.stringify(ev.added[0]));
  const me = await openPage(browser, server.base, new URL(link, server.base).pathname + new URL(link, server.base).search, PHONE);
  await me.page.locator('p.score').waitFor();
  assert.doesNotMatch(await me.page.locator('p.score').textContent(), /rank/, 'no rank before any round');
  const r1 = await api('POST', `/api/events/${ev.id}/rounds`, ev.director_token);
  await me.page.locator('.boardno .number').waitFor();
  assert.doesNotMatch(await me.page.locator('p.score').textContent(), /rank/, 'no rank while round 1 is played');
  for (const b of r1.boards) await api('POST', `/api/events/${ev.id}/rounds/1/boards/${b.board}/result`, ev.director_token, { result: resultOf(1, b.board) });
  await me.page.locator('p.score', { hasText: 'of 11' }).waitFor();
  const st = await api('GET', `/api/events/${ev.id}/standings`);
  const mine = st.rows.find((r) => r.number === 1);
  assert.match(await me.page.locator('p.score').textContent(), new RegExp(`rank ${mine.rank} of 11`));
  // A twelfth joins: the page counts them without a reload.
  await api('POST', `/api/events/${ev.id}/players`, ev.director_token, { players: [{ name: 'Late Comer', rating: 1500 }] });
  await me.page.locator('p.score', { hasText: 'of 12' }).waitFor();
  await shot(me.page, 'hall-player-rank-phone', true);
  assert.deepEqual(me.errors, []);
  await me.ctx.close();
});

test('the creation form says when a quick time control changes the ruleset', async () => {
  const page = await openPage(browser, server.base, '/events/new', DESKTOP);
  const quick = page.page.locator('button.quick-tc');
  await quick.first().waitFor();
  const current = await page.page.locator('#ev-rules').inputValue();
  const titles = await quick.evaluateAll((bs) => bs.map((b) => b.title));
  const other = titles.findIndex((t) => !t.endsWith(` under ${current}`));
  assert.ok(other >= 0, `a quick control of another ruleset than ${current}: ${titles.join(', ')}`);
  const rules = titles[other].match(/ under (.+)$/)[1];
  await quick.nth(other).click();
  const note = page.page.locator('.rule-note');
  await note.waitFor();
  const name = await page.page.locator(`#ev-rules option[value="${rules}"]`).textContent();
  assert.ok((await note.textContent()).startsWith(`The ruleset is now ${name}: `), await note.textContent());
  assert.equal(await page.page.locator('#ev-rules').inputValue(), rules);
  await shot(page.page, 'hall-setup-quick-desktop');
  // Choosing the ruleset by hand: the note goes.
  await page.page.selectOption('#ev-rules', current);
  await note.waitFor({ state: 'detached' });
  const phone = await openPage(browser, server.base, '/events/new', PHONE);
  await phone.page.locator('button.quick-tc').nth(other).click();
  await phone.page.locator('.rule-note').waitFor();
  await shot(phone.page, 'hall-setup-quick-phone', true);
  for (const p of [page, phone]) {
    assert.deepEqual(p.errors, []);
    await p.ctx.close();
  }
});
