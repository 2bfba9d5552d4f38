// What a club player's hands do on the board, through the pages of the real server: a
// flag that falls while the page is open, claimed with the button and with `f` (no
// reload); an online game (no press offered, a premove, a declined draw seen by its
// offerer, stepping back through the move list, a flip); the practice computer's illegal
// move left unclaimed. Desktop and phone widths; screenshots go to web/screenshots/.
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

/** A page of this file's server in this file's browser. */
function openPage(path, viewport = DESKTOP) {
  return openPageOf(browser, server.base, path, viewport);
}

/** The director's action sent over the director's own socket (set-up only: the test's subject is the player's page). */
async function directorSends(page, g, action) {
  const url = `${server.base.replace('http', 'ws')}/ws/games/${g.id}?token=${g.tokens.director}`;
  await page.evaluate(
    ([u, a]) =>
      new Promise((res, rej) => {
        const ws = new WebSocket(u);
        ws.onmessage = (m) => {
          const msg = JSON.parse(m.data);
          if (msg.type === 'event') {
            ws.close();
            res();
          } else if (msg.type === 'refused' || msg.type === 'error') rej(new Error(m.data));
        };
        ws.onopen = () => ws.send(JSON.stringify(a));
      }),
    [url, action],
  );
}

/** A game where Black has `ms` left, White's move pressed: Black's flag falls while the pages are open. */
async function flagGame(viewport) {
  const g = await createGame(server.base, { rules: 'uscf-2020', time_control: 'G/1;d0', white: 'Ada', black: 'Bao' });
  const white = await openPage(g.urls.white, viewport);
  await white.page.locator('.clock.bottom .time').waitFor();
  await directorSends(white.page, g, { add_time: { color: 'black', ms: -58_500 } });
  await clickSquare(white.page, 'e2', 'white');
  await clickSquare(white.page, 'e4', 'white');
  await white.page.locator('.press.ready').waitFor();
  await white.page.click('.press');
  return { g, white };
}

test('a flag that falls while the page is open is claimed with the button and with f, without a reload', async () => {
  const [a, b] = await Promise.all([flagGame(DESKTOP), flagGame(PHONE)]);
  for (const { g, white } of [a, b]) {
    // When White pressed, Black still had time: no claim yet.
    const s = await waitState(server.base, g.id, (st) => st.moves.length === 1, '1. e4');
    assert.ok(!s.claims.white.includes('flag'), `claims right after the press: ${s.claims.white}`);
  }
  // The flag falls on the server's clock; the page offers the claim at once.
  await a.white.page.locator('button[data-claim="flag"]').waitFor({ timeout: 5000 });
  await a.white.page.locator('.clock.top.down .flag').waitFor();
  await shot(a.white.page, 'game-flag-desktop');
  await a.white.page.click('button[data-claim="flag"]');
  await b.white.page.locator('button[data-claim="flag"]').waitFor({ timeout: 5000 });
  await shot(b.white.page, 'game-flag-phone', true);
  await b.white.page.locator('body').press('f');
  for (const { g, white } of [a, b]) {
    const done = await waitState(server.base, g.id, (st) => st.result !== '*', 'the flag claim decided');
    assert.equal(done.result, '1-0');
    assert.equal(done.reason, 'time_forfeit');
    await white.page.locator('.banner', { hasText: 'White wins' }).waitFor();
    assert.deepEqual(white.errors, []);
    await white.ctx.close();
  }
});

test('online: no press offered, a premove, a declined draw, the move list replayed, a flip', async () => {
  const g = await createGame(server.base, { rules: 'fide-b3', time_control: '3+2', mode: 'online', white: 'Ada', black: 'Bao' });
  const white = await openPage(g.urls.white);
  const black = await openPage(g.urls.black, PHONE);
  const spectator = await openPage(g.urls.spectator, PHONE);
  for (const p of [white, black, spectator]) await p.page.locator('.clock.bottom .time').waitFor();
  for (const p of [white, black]) {
    for (const sel of ['.press', '.takeback', '#autopress', 'button[data-claim="illegal"]']) {
      assert.equal(await p.page.locator(sel).count(), 0, `${sel} is offered online`);
    }
  }
  // 1. e4 by clicks: online the move is pressed with itself.
  await clickSquare(white.page, 'e2', 'white');
  await clickSquare(white.page, 'e4', 'white');
  await waitState(server.base, g.id, (s) => s.moves.length === 1, '1. e4');
  // White premoves d2-d4 while Black thinks; Black answers e5 on the phone; the premove plays.
  await white.page.locator('.clock.top.running').waitFor();
  await clickSquare(white.page, 'd2', 'white');
  await clickSquare(white.page, 'd4', 'white');
  await black.page.locator('.clock.bottom.running').waitFor();
  await clickSquare(black.page, 'e7', 'black');
  await clickSquare(black.page, 'e5', 'black');
  const s = await waitState(server.base, g.id, (st) => st.moves.length === 3, 'the premove played');
  assert.equal(s.moves[2].uci, 'd2d4');
  await black.page.locator('.moves .mv', { hasText: 'd4' }).waitFor();
  await shot(black.page, 'game-online-phone', true);

  // A draw offered and declined: the offerer is told.
  await black.page.click('.offers button.offer');
  await white.page.locator('.offers button.decline').click();
  await black.page.locator('.notice', { hasText: 'White declined your draw offer' }).waitFor();

  // Stepping back through the move list with the arrow keys and a click; End is live again.
  await white.page.locator('body').press('ArrowLeft');
  await white.page.locator('body').press('ArrowLeft');
  await white.page.locator('.replaying', { hasText: 'Move 1 of 3' }).waitFor();
  assert.equal((await white.page.locator('.moves .mv.active').textContent()).trim(), 'e4');
  // The board shows the position after 1. e4: no pawn on e5 yet.
  assert.equal(await white.page.locator('.board piece.pawn.black').count(), 8);
  await white.page.locator('.moves .mv[data-ply="2"]').click();
  await white.page.locator('.replaying', { hasText: 'Move 2 of 3' }).waitFor();
  await shot(white.page, 'game-online-replay-desktop');
  await white.page.locator('body').press('End');
  await white.page.locator('.replaying').waitFor({ state: 'detached' });

  // The spectator turns the board; the player too, with x.
  assert.equal(await spectator.page.locator('.board').getAttribute('data-orientation'), 'white');
  await spectator.page.click('button.flip');
  await spectator.page.locator('.board[data-orientation="black"]').waitFor();
  await shot(spectator.page, 'spectator-flipped-phone', true);
  await white.page.locator('body').press('x');
  await white.page.locator('.board[data-orientation="black"]').waitFor();
  for (const p of [white, black, spectator]) {
    assert.deepEqual(p.errors, []);
    await p.ctx.close();
  }
});

test("practice: the computer's illegal move left unclaimed, the page stays responsive", async () => {
  const r = await fetch(`${server.base}/api/practice`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      setup: { rules: 'uscf-2020', time_control: 'G/5;d0', white: 'Ada', director: false },
      computer: { color: 'black', level: 1, training: true, illegal_rate: 1, seed: 7 },
    }),
  });
  assert.equal(r.status, 201, await r.clone().text());
  const g = await r.json();
  const p = await openPage(g.urls.white, PHONE);
  await p.page.locator('.clock.bottom .time').waitFor();
  await p.page.locator('#autopress').check();
  await p.page.fill('#moveinput', 'd2d4');
  await p.page.press('#moveinput', 'Enter');
  const s = await waitState(server.base, g.id, (st) => st.moves.length === 2, "the computer's move");
  assert.equal(s.moves[1].san, undefined, `the computer's move ${s.moves[1].uci} should be illegal`);
  // The list writes it as any other move: nothing gives it away.
  const listed = await p.page.locator('.moves').textContent();
  assert.ok(!listed.includes('?'), `the move list marks a move: ${listed}`);
  // Play on without claiming.
  await p.page.fill('#moveinput', 'g1f3');
  await p.page.press('#moveinput', 'Enter');
  await waitState(server.base, g.id, (st) => st.moves.length >= 3, 'the player played on');
  // No flood: the computer answers with a move (its next illegal one), and the game's
  // log grows by moves and presses only, however long it is left unclaimed.
  await waitState(server.base, g.id, (st) => st.moves.length >= 4, "the computer's next move");
  await new Promise((r) => setTimeout(r, 1500));
  const calm = await waitState(server.base, g.id, () => true, 'the state');
  assert.ok(calm.n <= 2 * calm.moves.length + 2, `${calm.n} events for ${calm.moves.length} moves: the computer floods`);
  assert.equal(calm.result, '*', 'the game goes on');
  // The page answers a click at once, whatever the computer sends.
  const t0 = Date.now();
  await p.page.click('button.flip');
  await p.page.locator('.board[data-orientation="black"]').waitFor({ timeout: 2000 });
  assert.ok(Date.now() - t0 < 2000, 'the page answered a click slowly');
  await shot(p.page, 'practice-phone', true);
  assert.deepEqual(p.errors, []);
  await p.ctx.close();
});

test("the director's time change after both sides moved, an offence and a result, each confirmed; a promotion by its piece", async () => {
  const g = await createGame(server.base, { rules: 'uscf-2020', time_control: 'G/5;d0', white: 'Ada', black: 'Bao' });
  const white = await openPage(g.urls.white, PHONE);
  const black = await openPage(g.urls.black);
  for (const p of [white, black]) await p.page.locator('.clock.bottom .time').waitFor();
  await white.page.locator('#autopress').check();
  await black.page.locator('#autopress').check();
  await white.page.fill('#moveinput', 'e2e4');
  await white.page.press('#moveinput', 'Enter');
  await waitState(server.base, g.id, (s) => s.moves.length === 1, '1. e4');
  await black.page.fill('#moveinput', 'e7e5');
  await black.page.press('#moveinput', 'Enter');
  await waitState(server.base, g.id, (s) => s.moves.length === 2, '1... e5');

  const director = await openPage(g.urls.director, PHONE);
  const card = director.page.locator(`.dcard[data-game="${g.id}"]`);
  await card.locator('.clock .who', { hasText: 'Ada' }).waitFor();
  await card.locator('.clock .who', { hasText: 'Bao' }).waitFor();
  // A minute to White after both sides moved: applied, and the players see it.
  await card.locator('button.add-white').click();
  const s1 = await waitState(server.base, g.id, (s) => s.rulings.some((r) => r.kind === 'time_change'), 'the added minute');
  assert.ok(s1.clock.white_ms > 300_000, `White's clock: ${s1.clock.white_ms}`);
  await white.page.locator('.rulings li.time_change').waitFor();
  // An offence: the console asks first; cancelled, nothing happens; confirmed, it is recorded.
  await card.locator('select[aria-label="offender"]').selectOption('black');
  await card.locator('select[aria-label="offence"]').selectOption('touch_move');
  await card.locator('.preview', { hasText: 'First' }).waitFor();
  director.page.once('dialog', (d) => d.dismiss());
  await card.locator('button.offence-apply').click();
  const n = (await waitState(server.base, g.id, () => true, 'state')).n;
  director.page.once('dialog', (d) => d.accept());
  await card.locator('button.offence-apply').click();
  await waitState(server.base, g.id, (s) => s.n === n + 1, 'the offence recorded');
  // The ladder's next step follows the offence just recorded.
  await card.locator('.preview', { hasText: 'Offence no. 2' }).waitFor();
  await shot(director.page, 'director-offence-phone', true);

  // A promotion by its piece: the picker shows the pieces over the board.
  const p = await createGame(server.base, { rules: 'uscf-2020', time_control: 'G/5;d0', fen: '4k3/P7/8/8/8/8/8/4K3 w - - 0 1' });
  const promo = await openPage(p.urls.white);
  await promo.page.locator('.clock.bottom .time').waitFor();
  await clickSquare(promo.page, 'a7', 'white');
  await clickSquare(promo.page, 'a8', 'white');
  // Cancelled, the pawn goes back; asked again, the picker shows the pieces over the board.
  await promo.page.click('.promo button.cancel');
  await promo.page.locator('.promo').waitFor({ state: 'detached' });
  await promo.page.waitForFunction(() => {
    const pawn = document.querySelector('.board piece.pawn.white');
    const board = document.querySelector('.board cg-board');
    if (!pawn || !board) return false;
    // a7: the first file, the second rank from the top.
    const p = pawn.getBoundingClientRect();
    const b = board.getBoundingClientRect();
    return Math.round((p.left - b.left) / p.width) === 0 && Math.round((p.top - b.top) / p.height) === 1;
  });
  await clickSquare(promo.page, 'a7', 'white');
  await clickSquare(promo.page, 'a8', 'white');
  await promo.page.locator('.promo button[data-promo="n"] piece.knight.white').waitFor();
  await shot(promo.page, 'game-promotion-desktop');
  await promo.page.click('.promo button[data-promo="n"]');
  const sp = await waitState(server.base, p.id, (s) => s.board_move !== null, 'the promotion on the board');
  assert.equal(sp.board_move.uci, 'a7a8n');

  // The director declares a draw, after confirming.
  await card.locator('select[aria-label="result to declare"]').selectOption('1/2-1/2');
  director.page.once('dialog', (d) => d.accept());
  await card.locator('button.declare').click();
  const done = await waitState(server.base, g.id, (s) => s.result !== '*', 'the declared result');
  assert.equal(done.result, '1/2-1/2');
  await white.page.locator('.banner', { hasText: 'Draw' }).waitFor();
  for (const x of [white, black, director, promo]) {
    assert.deepEqual(x.errors, []);
    await x.ctx.close();
  }
});
