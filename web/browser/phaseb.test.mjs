// Issue 20 phase B, through the pages of the real server: a rematch offered, declined
// (seen by its offerer), offered again and accepted, both players landing on the new game
// with the colours swapped; "Take back" offered only when the rules allow it; SAN typed
// and a promotion online, read from the server's lists; the director's clock and time
// buttons; every control of the lobby (quick buttons and rulesets from the server, the
// forms, the practice computer, the console link). Desktop and phone widths; screenshots
// go to web/screenshots/.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { clickSquare, createGame, shot, startBrowser, startServer, waitState, DESKTOP, PHONE, openPage as openPageOf } from './harness.mjs';

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

/** Waits until the field `selector` holds `value` (the page renders in the next animation frame). */
async function valueIs(page, selector, value) {
  await page.waitForFunction(([sel, v]) => document.querySelector(sel)?.value === v, [selector, value], { timeout: 5000 });
}

async function typeMove(page, move) {
  await page.fill('#moveinput', move);
  await page.press('#moveinput', 'Enter');
}

test('a rematch: offered, declined and seen by its offerer, offered again, accepted; both land on the new game', async () => {
  const g = await createGame(server.base, { rules: 'fide-b3', time_control: '3+2', mode: 'online', white: 'Ann', black: 'Bo' });
  const ann = await openPage(g.urls.white);
  const bo = await openPage(g.urls.black, PHONE);
  for (const p of [ann, bo]) await p.page.locator('.clock.bottom .time').waitFor();
  // No rematch while the game goes on.
  assert.equal(await ann.page.locator('.rematch').count(), 0);
  await typeMove(ann.page, 'e4');
  await waitState(server.base, g.id, (s) => s.moves.length === 1, '1. e4');
  // Bo resigns: the button asks once more.
  await bo.page.click('button.resign');
  await bo.page.locator('button.resign.confirm').click();
  await waitState(server.base, g.id, (s) => s.result === '1-0', 'the resignation');
  await ann.page.locator('.banner', { hasText: 'White wins' }).waitFor();
  await ann.page.click('button.rematch-offer');
  await ann.page.locator('.rematch-wait').waitFor();
  await bo.page.locator('button.rematch-accept').waitFor();
  await shot(bo.page, 'game-rematch-offered-phone', true);
  await shot(ann.page, 'game-rematch-waiting-desktop');
  await bo.page.click('button.rematch-decline');
  await ann.page.locator('.rematch-declined', { hasText: 'declined the rematch' }).waitFor();
  await shot(ann.page, 'game-rematch-declined-desktop');
  await ann.page.click('button.rematch-offer');
  await bo.page.locator('button.rematch-accept').click();
  // Both pages go to the new game by themselves; the colours are swapped.
  await bo.page.waitForURL((u) => u.pathname.startsWith('/play/') && !u.pathname.endsWith(g.id), { timeout: 10_000 });
  await ann.page.waitForURL((u) => u.pathname.startsWith('/play/') && !u.pathname.endsWith(g.id), { timeout: 10_000 });
  const id = new URL(bo.page.url()).pathname.split('/')[2];
  assert.equal(new URL(ann.page.url()).pathname.split('/')[2], id, 'both on the same new game');
  await bo.page.locator('.game-title', { hasText: 'you play white' }).waitFor();
  await ann.page.locator('.game-title', { hasText: 'you play black' }).waitFor();
  await bo.page.locator('.clock.bottom .who', { hasText: 'Bo' }).waitFor();
  const s = await waitState(server.base, id, () => true, 'the new game');
  assert.equal(s.setup.white, 'Bo');
  assert.equal(s.setup.black, 'Ann');
  assert.equal(s.mode, 'online');
  assert.equal(s.setup.time_control, '3+2');
  // Bo, now White, moves first on the new game.
  await typeMove(bo.page, 'd4');
  await waitState(server.base, id, (st) => st.moves.length === 1 && st.moves[0].san === 'd4', '1. d4 in the new game');
  for (const p of [ann, bo]) {
    assert.deepEqual(p.errors, []);
    await p.ctx.close();
  }
});

test('over the board, Take back is offered only for a move the rules let the player take back', async () => {
  for (const viewport of [DESKTOP, PHONE]) {
    const g = await createGame(server.base, { rules: 'uscf-2020', time_control: 'G/5;d0' });
    const w = await openPage(g.urls.white, viewport);
    await w.page.locator('.clock.bottom .time').waitFor();
    // A legal move on the board: touch move (uscf-2020 15), no Take back; Press is ready.
    await typeMove(w.page, 'e2e4');
    await w.page.locator('.press.ready').waitFor();
    await waitState(server.base, g.id, (s) => s.board_move?.uci === 'e2e4', 'e4 on the board');
    assert.equal(await w.page.locator('button.takeback').count(), 0, 'no Take back for a legal move');
    await w.page.locator('body').press('Backspace');
    assert.equal((await waitState(server.base, g.id, () => true, 'state')).board_move?.uci, 'e2e4', 'Backspace did nothing');
    await w.page.click('.press');
    await waitState(server.base, g.id, (s) => s.moves.length === 1, '1. e4');
    // Black's page: an illegal move may be taken back, with the button or Backspace.
    const b = await openPage(g.urls.black, viewport);
    await b.page.locator('.clock.bottom .time').waitFor();
    await typeMove(b.page, 'e7e4');
    await b.page.locator('button.takeback').waitFor();
    await shot(b.page, `game-takeback-${viewport === PHONE ? 'phone' : 'desktop'}`, viewport === PHONE);
    await b.page.click('button.takeback');
    await waitState(server.base, g.id, (s) => s.board_move === null, 'the illegal move taken back');
    await b.page.locator('button.takeback').waitFor({ state: 'detached' });
    for (const p of [w, b]) {
      assert.deepEqual(p.errors, []);
      await p.ctx.close();
    }
  }
});

test('online: SAN typed and a promotion, read from the server\'s legal moves; a refused move names its reason', async () => {
  const g = await createGame(server.base, { rules: 'fide-b3', time_control: '3+2', mode: 'online', fen: '4k3/P7/8/8/8/8/8/4K2R w K - 0 1' });
  const w = await openPage(g.urls.white, PHONE);
  await w.page.locator('.clock.bottom .time').waitFor();
  // A SAN that names no legal move is refused by the server, naming it (issue 31: the page reads no SAN itself).
  await typeMove(w.page, 'Qh5');
  await w.page.locator('.typed-refused', { hasText: 'Move not played: "Qh5" is not a legal move for White here' }).waitFor();
  // Castling typed with zeros, as players write it.
  await typeMove(w.page, '0-0');
  await waitState(server.base, g.id, (s) => s.moves.length === 1 && s.moves[0].san === 'O-O', 'O-O');
  const b = await openPage(g.urls.black);
  await b.page.locator('.clock.bottom .time').waitFor();
  await typeMove(b.page, 'Kd7');
  await waitState(server.base, g.id, (s) => s.moves.length === 2, '1... Kd7');
  // a8: the page asks for the piece, because the server lists a8=Q … a8=N.
  await clickSquare(w.page, 'a7', 'white');
  await clickSquare(w.page, 'a8', 'white');
  await w.page.locator('.promo button[data-promo="r"] piece.rook.white').waitFor();
  // Online there is no "leave a pawn".
  assert.equal(await w.page.locator('.promo button[data-promo=""]').count(), 0);
  await shot(w.page, 'game-online-promotion-phone', true);
  await w.page.click('.promo button[data-promo="r"]');
  const s = await waitState(server.base, g.id, (st) => st.moves.length === 3, 'the promotion');
  assert.equal(s.moves[2].san, 'a8=R');
  await b.page.locator('.moves', { hasText: 'a8=R' }).waitFor();
  for (const p of [w, b]) {
    assert.deepEqual(p.errors, []);
    await p.ctx.close();
  }
});

test("the director's clock and time buttons, offered as the server says", async () => {
  const g = await createGame(server.base, { rules: 'uscf-2020', time_control: 'G/5;d0', white: 'Ada', black: 'Bao' });
  const w = await openPage(g.urls.white);
  await w.page.locator('.clock.bottom .time').waitFor();
  await typeMove(w.page, 'e2e4');
  await w.page.click('.press');
  await waitState(server.base, g.id, (s) => s.moves.length === 1, '1. e4');
  for (const viewport of [DESKTOP, PHONE]) {
    const d = await openPage(g.urls.director, viewport);
    const card = d.page.locator(`.dcard[data-game="${g.id}"]`);
    await card.locator('.clock .who', { hasText: 'Ada' }).waitFor();
    if (viewport === DESKTOP) {
      // The clock runs: Stop is offered, Start is not.
      assert.equal(await card.locator('button.start').isDisabled(), true);
      await card.locator('button.stop').click();
      await waitState(server.base, g.id, (s) => s.running === null, 'the clock stopped');
      await card.locator('button.start:not([disabled])').click();
      await waitState(server.base, g.id, (s) => s.running === 'black', 'the clock running again');
      const before = (await waitState(server.base, g.id, () => true, 'state')).clock.black_ms;
      await card.locator('button.sub-black').click();
      const after = await waitState(server.base, g.id, (s) => s.clock.black_ms < before - 50_000, 'a minute taken from Black');
      assert.ok(after.rulings.some((r) => r.kind === 'time_change'));
      await card.locator('button.sub-white').click();
      await card.locator('button.add-black').click();
      await waitState(server.base, g.id, (s) => s.rulings.filter((r) => r.kind === 'time_change').length === 3, 'three time changes');
      // Every offence kind the server lists, with its next penalty and rule.
      const kinds = await card.locator('select[aria-label="offence"] option').allTextContents();
      assert.deepEqual(kinds, ['Two hands', 'Displaced pieces', 'Knocked the clock', 'Touch move', 'Other']);
      await card.locator('.preview', { hasText: "First offence: one minute added to the opponent's clock" }).waitFor();
      await card.locator('.preview .cite', { hasText: 'uscf-2020 4' }).waitFor();
      await shot(d.page, 'director-desktop');
    } else {
      await card.locator('.preview').waitFor();
      await shot(d.page, 'director-phone', true);
    }
    assert.deepEqual(d.errors, []);
    await d.ctx.close();
  }
  await w.ctx.close();
});

test('every control of the lobby, with the rulesets and quick buttons from the server', async () => {
  for (const viewport of [DESKTOP, PHONE]) {
    const l = await openPage('/', viewport);
    const { page } = l;
    const rulesets = await (await fetch(`${server.base}/api/rulesets`)).json();
    await page.locator('button.quick-tc').first().waitFor();
    // The quick buttons are the server's; each sets the ruleset and the time control.
    const quick = await page.locator('button.quick-tc').allTextContents();
    assert.deepEqual(quick, rulesets.quick.map((q) => q.time_control));
    for (const q of rulesets.quick) {
      await page.click(`button.quick-tc[data-tc="${q.time_control}"]`);
      await valueIs(page, '#rules', q.rules);
      await valueIs(page, '#tc', q.time_control);
    }
    // Another ruleset: its own first usual control and its notation.
    await page.selectOption('#rules', 'blitz-2006');
    await valueIs(page, '#tc', '5|0');
    await page.locator('#tc-help', { hasText: 'minutes|delay' }).waitFor();
    await page.selectOption('#mode', 'online');
    await page.selectOption('#color', 'black');
    await page.fill('#myname', 'Cy');
    await page.fill('#oppname', 'Di');
    await page.locator('#director').uncheck();
    await page.locator('#director').check();
    // A refused time control: the error in words, no stale game block.
    await page.fill('#tc', 'G/99');
    await page.click('form.create:not(.practice) button[type="submit"]');
    await page.locator('form.create:not(.practice) p.error', { hasText: 'Time control' }).waitFor();
    assert.equal(await page.locator('section.created h2').count(), 0);
    await page.selectOption('#rules', 'fide-b3');
    await page.selectOption('#mode', 'otb');
    await page.click('form.create:not(.practice) button[type="submit"]');
    await page.locator('section.created h2', { hasText: 'is ready' }).waitFor();
    assert.equal(await page.locator('form.create:not(.practice) p.error').textContent(), '');
    await page.locator('section.created .linkrow', { hasText: 'You (black)' }).waitFor();
    await page.locator('section.created .qr svg').waitFor();
    await shot(page, `lobby-created-${viewport === PHONE ? 'phone' : 'desktop'}`, true);
    // The game is live in the list with its names; its line opens the spectator page.
    const id = (await page.locator('section.created h2').textContent()).split(' ')[1];
    await page.locator(`ul.games.live li:has(a[href="/watch/${id}"])`, { hasText: 'Di – Cy' }).waitFor();
    // Practice: ruleset, time control, colour, strength, training; starts a game.
    await page.selectOption('#p-rules', 'uscf-2020');
    await valueIs(page, '#p-tc', 'G/5;d0');
    await page.selectOption('#p-color', 'black');
    await page.locator('#p-level').fill('12');
    await page.locator('#p-level-out', { hasText: '12' }).waitFor();
    await page.locator('#p-training').uncheck();
    if (viewport === PHONE) {
      // The director console link opens the console page, not JSON.
      await page.click('a.console');
      await page.waitForURL(/\/direct\/$/);
      await page.locator('.game-title', { hasText: 'Director console' }).waitFor();
      await shot(page, 'director-console-list-phone', true);
    } else {
      await page.click('form.practice button[type="submit"]');
      await page.waitForURL(/\/play\/[0-9a-f]+\?token=/);
      await page.locator('.game-title', { hasText: 'you play black' }).waitFor();
      await page.locator('.clock.top .who', { hasText: 'Computer' }).waitFor();
      await shot(page, 'practice-desktop');
    }
    // The one error: the browser's own line for the refused time control's 400.
    assert.deepEqual(l.errors, ['Failed to load resource: the server responded with a status of 400 (Bad Request)']);
    await l.ctx.close();
  }
});

test('the challenge page: waiting, then cancelled with its button; the lobby lists it no more', async () => {
  for (const viewport of [DESKTOP, PHONE]) {
    const l = await openPage('/', viewport);
    await l.page.locator('button.quick-tc').first().waitFor();
    await l.page.fill('#myname', viewport === PHONE ? 'Eve' : 'Fay');
    await l.page.click('button.open-challenge');
    await l.page.waitForURL(/\/challenge\/[0-9a-f]+\?secret=/);
    const id = new URL(l.page.url()).pathname.split('/')[2];
    await l.page.locator('.waiting', { hasText: 'waiting for someone' }).waitFor();
    await l.page.locator('.what', { hasText: 'you play White' }).waitFor();
    const listed = await (await fetch(`${server.base}/api/challenges`)).json();
    assert.ok(listed.some((c) => c.id === id), 'the challenge is open in the lobby');
    await l.page.click('button.cancel-challenge');
    await l.page.locator('.waiting', { hasText: 'cancelled' }).waitFor();
    await l.page.locator('button.cancel-challenge').waitFor({ state: 'detached' });
    await shot(l.page, `challenge-cancelled-${viewport === PHONE ? 'phone' : 'desktop'}`, viewport === PHONE);
    const after = await (await fetch(`${server.base}/api/challenges`)).json();
    assert.ok(!after.some((c) => c.id === id), 'a cancelled challenge leaves the lobby');
    assert.deepEqual(l.errors, []);
    await l.ctx.close();
  }
});

test('the rest of the game page and the console: Play, mute, the move list buttons, Accept draw, PGN, Leave a pawn, Keep it stopped, Deny and Grant', async () => {
  const g = await createGame(server.base, { rules: 'blitz-2006', time_control: '5|0', white: 'Ada', black: 'Bao' });
  const w = await openPage(g.urls.white);
  const b = await openPage(g.urls.black, PHONE);
  const d = await openPage(g.urls.director);
  for (const p of [w, b]) await p.page.locator('.clock.bottom .time').waitFor();
  const card = d.page.locator(`.dcard[data-game="${g.id}"]`);
  await card.locator('.clock .who', { hasText: 'Ada' }).waitFor();
  // Mute and unmute.
  await w.page.click('button.mute');
  await w.page.locator('button.mute', { hasText: 'Sound: off' }).waitFor();
  await w.page.click('button.mute');
  await w.page.locator('button.mute', { hasText: 'Sound: on' }).waitFor();
  // Moves typed and sent with the Play button, pressed with the Press button.
  const play = async (p, mv, n) => {
    await p.page.fill('#moveinput', mv);
    await p.page.click('form.moveform button[type="submit"]');
    await p.page.locator('.press.ready').waitFor();
    await p.page.click('.press');
    await waitState(server.base, g.id, (s) => s.moves.length === n, mv);
  };
  await play(w, 'g1f3', 1);
  await play(b, 'g8f6', 2);
  await play(w, 'f3g1', 3);
  // The move list's buttons: start, forward, back, to the end, and "Back to the game".
  await w.page.click('.movenav button.first');
  await w.page.locator('.replaying', { hasText: 'Move 0 of 3' }).waitFor();
  await w.page.click('.movenav button.next');
  await w.page.locator('.replaying', { hasText: 'Move 1 of 3' }).waitFor();
  await w.page.click('.movenav button.last');
  await w.page.locator('.replaying').waitFor({ state: 'detached' });
  await w.page.click('.movenav button.prev');
  await w.page.locator('.replaying', { hasText: 'Move 2 of 3' }).waitFor();
  await w.page.click('.replaying button.live');
  await w.page.locator('.replaying').waitFor({ state: 'detached' });
  // A call for the director kept stopped from the console, then the clock started.
  await b.page.click('button.call-director');
  await card.locator('button.keep-stopped').click();
  await waitState(server.base, g.id, (s) => !s.called && s.running === null, 'the clock kept stopped');
  await card.locator('button.start:not([disabled])').click();
  await waitState(server.base, g.id, (s) => s.running === 'black', 'the clock running');
  // A drawn-position claim waits for the director: denied, then claimed again and granted.
  await b.page.locator('button[data-claim="draw_position"]').click();
  await card.locator('.pending button.deny').click();
  await waitState(server.base, g.id, (s) => !s.pending && s.rulings.some((r) => r.kind === 'claim_rejected'), 'the claim denied');
  await shot(d.page, 'director-after-deny-desktop');
  // Accept draw: White offers (d), Black accepts with the button.
  await w.page.locator('body').press('d');
  await b.page.locator('button.accept').click();
  const done = await waitState(server.base, g.id, (s) => s.result === '1/2-1/2', 'the agreed draw');
  assert.equal(done.reason, 'agreement');
  // The PGN link downloads the game.
  const [download] = await Promise.all([w.page.waitForEvent('download'), w.page.click('a.pgn')]);
  assert.equal(download.suggestedFilename(), `${g.id}.pgn`);

  // Grant: a second game whose drawn-position claim the director grants.
  const g2 = await createGame(server.base, { rules: 'blitz-2006', time_control: '5|0' });
  const w2 = await openPage(g2.urls.white);
  const d2 = await openPage(g2.urls.director, PHONE);
  await w2.page.locator('.clock.bottom .time').waitFor();
  await w2.page.locator('button[data-claim="draw_position"]').click();
  const card2 = d2.page.locator(`.dcard[data-game="${g2.id}"]`);
  await card2.locator('.pending button.grant').waitFor();
  await shot(d2.page, 'director-pending-phone', true);
  await card2.locator('.pending button.grant').click();
  await waitState(server.base, g2.id, (s) => s.result === '1/2-1/2', 'the claim granted');

  // Leave a pawn: over the board a pawn may stay a pawn on the last rank (an illegal move).
  const g3 = await createGame(server.base, { rules: 'uscf-2020', time_control: 'G/5;d0', fen: '4k3/P7/8/8/8/8/8/4K3 w - - 0 1' });
  const w3 = await openPage(g3.urls.white, PHONE);
  await w3.page.locator('.clock.bottom .time').waitFor();
  await clickSquare(w3.page, 'a7', 'white');
  await clickSquare(w3.page, 'a8', 'white');
  await w3.page.click('.promo button[data-promo=""]');
  const s3 = await waitState(server.base, g3.id, (s) => s.board_move !== null, 'the pawn left on a8');
  assert.equal(s3.board_move.uci, 'a7a8');
  for (const p of [w, b, d, w2, d2, w3]) {
    assert.deepEqual(p.errors, []);
    await p.ctx.close();
  }
});
