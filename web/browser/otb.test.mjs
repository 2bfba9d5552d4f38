// Two browser contexts play over-the-board blitz through the pages of the real server:
// an illegal move claimed, a flag claimed, the director adding a minute, a spectator
// following. Screenshots go to web/screenshots/.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { clickSquare, createGame, getState, shot, startBrowser, startServer, waitState, DESKTOP, openPage as openPageOf } from './harness.mjs';

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

/** Types a move into the keyboard box and presses the clock with the space bar. */
async function typeMoveAndPress(page, uci) {
  await page.fill('#moveinput', uci);
  await page.press('#moveinput', 'Enter');
  await page.locator('.press.ready').waitFor();
  await page.locator('body').press('Space');
}

test('an illegal move stands until claimed; the ruling and its rule show on both pages and the spectator follows', async () => {
  const g = await createGame(server.base, { rules: 'uscf-2020', time_control: 'G/5;d0', white: 'Ada', black: 'Bao' });
  const white = await openPage(g.urls.white);
  const black = await openPage(g.urls.black);
  const spectator = await openPage(g.urls.spectator);
  for (const p of [white, black, spectator]) await p.page.locator('.clock.bottom .time').waitFor();
  assert.match(await white.page.locator('.game-title').textContent(), /you play white/);
  assert.match(await black.page.locator('.game-title').textContent(), /you play black/);

  // 1. e4 by clicking the squares, pressed with the big button.
  await clickSquare(white.page, 'e2', 'white');
  await clickSquare(white.page, 'e4', 'white');
  await white.page.locator('.press.ready').waitFor();
  await white.page.click('.press');
  await waitState(server.base, g.id, (s) => s.moves.length === 1, '1. e4');
  // 1... e5 typed on the keyboard, pressed with the space bar (Black's board is flipped).
  await typeMoveAndPress(black.page, 'e7e5');
  await waitState(server.base, g.id, (s) => s.moves.length === 2, '1... e5');
  await spectator.page.locator('.moves li', { hasText: 'e7-e5' }).waitFor();

  // 2. Ke3?? leaves... no: the king jumps two squares, an illegal move; the board lets it stand.
  await clickSquare(white.page, 'e1', 'white');
  await clickSquare(white.page, 'e3', 'white');
  await white.page.locator('.press.ready').waitFor();
  await white.page.locator('body').press('Space');
  await waitState(server.base, g.id, (s) => s.moves.length === 3, 'the illegal move completed');
  await spectator.page.locator('.moves li', { hasText: 'Ke1-e3' }).waitFor();
  // Black claims it with the button the server offers.
  const claim = black.page.locator('button[data-claim="illegal"]');
  await claim.waitFor();
  await black.page.locator('.moves li', { hasText: 'Ke1-e3' }).waitFor();
  // The opponent's list writes the illegal move as any other: the board alone tells.
  const listed = await black.page.locator('.moves').textContent();
  assert.ok(!listed.includes('?'), `Black's move list marks a move: ${listed}`);
  // Every move in the same scoresheet notation and the same look, on the opponent's page
  // and the spectator's: nothing but the board tells the illegal one.
  await spectator.page.locator('.moves .mv[data-ply="3"]').waitFor();
  for (const p of [black, spectator]) {
    const cells = await p.page.locator('.moves .mv[data-ply]').evaluateAll((els) =>
      els.map((e) => ({
        text: e.textContent.trim(),
        look: [...e.classList].filter((c) => !['active', 'w', 'b'].includes(c)).sort().join(' '),
        attrs: e.getAttributeNames().sort().join(' '),
        title: e.getAttribute('title'),
        color: getComputedStyle(e).color,
        weight: getComputedStyle(e).fontWeight,
      })),
    );
    assert.deepEqual(
      cells.map((c) => c.text),
      ['e2-e4', 'e7-e5', 'Ke1-e3'],
    );
    for (const c of cells) {
      const { text, ...look } = c;
      const { text: _t, ...first } = cells[0];
      assert.deepEqual(look, first, `${text} looks unlike ${cells[0].text}`);
    }
  }
  assert.equal(await black.page.locator('.board .check').count(), 0);
  await shot(black.page, 'game-desktop');
  await claim.click();
  const done = await waitState(server.base, g.id, (s) => s.result !== '*', 'the claim decided');
  assert.equal(done.result, '0-1');
  assert.equal(done.reason, 'illegal_move');
  for (const p of [white, black, spectator]) {
    await p.page.locator('.banner', { hasText: 'Black wins' }).waitFor();
    await p.page.locator('.banner .cite', { hasText: done.rule }).waitFor();
    await p.page.locator('.rulings li.result .cite', { hasText: done.rule }).waitFor();
  }
  await black.page.locator('.notice.good', { hasText: 'illegal' }).waitFor();
  await shot(black.page, 'game-desktop-result');
  await shot(spectator.page, 'spectator');
  for (const p of [white, black, spectator]) {
    assert.deepEqual(p.errors, []);
    await p.ctx.close();
  }
});

test('the director adds a minute, a flag falls and is claimed', async () => {
  const g = await createGame(server.base, { rules: 'uscf-2020', time_control: 'G/3;d0', white: 'Ada', black: 'Bao' });
  const white = await openPage(g.urls.white);
  const black = await openPage(g.urls.black, { width: 390, height: 844 });
  const director = await openPage(g.urls.director, { width: 1280, height: 900 });
  const card = director.page.locator(`.dcard[data-game="${g.id}"]`);
  await card.locator('.clock .time').first().waitFor();

  // The director adds a minute to White: 3:00 becomes 4:00 on the players' clocks.
  await card.locator('button.add-white').click();
  await waitState(server.base, g.id, (s) => s.rulings.some((r) => r.kind === 'time_change'), 'the added minute');
  // White's clock may already run (the clock starts with the game), so it shows a little under 4:00.
  const shown = async (loc) => {
    const t = (await loc.textContent()).trim();
    const [m, sec] = t.split(':').map(Number);
    return (m * 60 + sec) * 1000;
  };
  for (const loc of [white.page.locator('.clock.bottom .time'), black.page.locator('.clock.top .time'), card.locator('.clock .time').first()]) {
    await loc.page().waitForFunction(() => true);
    const deadline = Date.now() + 5000;
    let ms = 0;
    while (Date.now() < deadline && (ms = await shown(loc)) <= 200_000) await new Promise((r) => setTimeout(r, 50));
    assert.ok(ms > 200_000 && ms <= 240_000, `White's clock after the added minute shows ${ms} ms`);
  }
  await card.locator('.lastruling .cite').waitFor();
  await shot(director.page, 'director');

  // ... and takes almost all of Black's time away (the setup is still open), so Black's flag falls.
  for (let i = 0; i < 3; i += 1) {
    const n = (await getState(server.base, g.id)).n;
    await card.locator('button.sub-black').click();
    await waitState(server.base, g.id, (s) => s.n > n, 'a minute taken');
  }
  await director.page.evaluate(() => 0);
  const s0 = await getState(server.base, g.id);
  assert.ok(s0.clock.black_ms <= 0, `Black's clock after three minutes taken: ${s0.clock.black_ms}`);
  // White moves; Black's clock runs below zero: the flag shows on both pages.
  await typeMoveAndPress(white.page, 'e2e4');
  await white.page.locator('.clock.top.down .flag').waitFor();
  await black.page.locator('.clock.bottom.down .flag').waitFor();
  const flag = white.page.locator('button[data-claim="flag"]');
  await flag.waitFor();
  await shot(black.page, 'game-phone');
  await white.page.locator('body').press('f');
  const done = await waitState(server.base, g.id, (s) => s.result !== '*', 'the flag claim decided');
  assert.equal(done.result, '1-0');
  assert.equal(done.reason, 'time_forfeit');
  await white.page.locator('.banner', { hasText: 'White wins' }).waitFor();
  await black.page.locator('.banner', { hasText: 'time forfeit' }).waitFor();
  await card.locator('.banner', { hasText: 'White wins' }).waitFor();
  for (const p of [white, black, director]) {
    assert.deepEqual(p.errors, []);
    await p.ctx.close();
  }
});

test('the lobby creates a game and shows its links and QR code', async () => {
  const lobby = await openPage('/');
  await lobby.page.selectOption('#rules', 'fide-b3');
  // The lobby renders in the next animation frame: wait for the field to follow.
  const valueIs = (sel, v) => lobby.page.waitForFunction(([s, x]) => document.querySelector(s)?.value === x, [sel, v], { timeout: 5000 });
  await valueIs('#tc', '3+2');
  await lobby.page.fill('#myname', 'Ada');
  await lobby.page.click('form.create:not(.practice) button[type=submit]');
  await lobby.page.locator('.created .qr svg').waitFor();
  const links = await lobby.page.locator('.created input.link').evaluateAll((els) => els.map((e) => e.value));
  assert.equal(links.length, 4);
  assert.match(links[0], /\/play\/[^?]+\?token=/);
  assert.match(links[2], /\/direct\/[^?]+\?token=/);
  assert.match(links[3], /\/watch\//);
  await lobby.page.locator('ul.games.live li a').first().waitFor();
  await shot(lobby.page, 'lobby', true);
  // A quick time-control button fills the ruleset and the field.
  await lobby.page.click('button.quick-tc[data-tc="G/3;d2"]');
  await valueIs('#rules', 'uscf-2020');
  await valueIs('#tc', 'G/3;d2');
  // A bad time control: the old game's block goes, the error names the field in words.
  await lobby.page.fill('#tc', 'G/x');
  await lobby.page.click('form.create:not(.practice) button[type=submit]');
  await lobby.page.locator('form.create .error', { hasText: 'Time control:' }).waitFor();
  assert.equal(await lobby.page.locator('.created .qr').count(), 0);
  // The director console link opens the console, not the server's JSON.
  await lobby.page.click('a.console');
  await lobby.page.locator('main.director').waitFor();
  await lobby.page.setViewportSize({ width: 390, height: 844 });
  await shot(lobby.page, 'director-phone', true);
  await lobby.page.goto(server.base + '/');
  await lobby.page.locator('#tc').waitFor();
  await shot(lobby.page, 'lobby-phone', true);
  // The browser logs the refused create (400) itself; nothing else went wrong.
  assert.deepEqual(lobby.errors.filter((e) => !e.includes('status of 400')), []);
  await lobby.ctx.close();
});
