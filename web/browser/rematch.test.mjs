// A rematch of a directed game on the director console (issue 30): once the players
// accept a rematch, the console adds the new game, directed with the same link, and a
// player's call for the director there is answered from it (before, nobody held the new
// game's director token and the call stopped the clocks for good).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createGame, shot, startBrowser, startServer, waitState, DESKTOP, PHONE, openPage as openPageOf } from './harness.mjs';

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

/** A page at both widths: the desktop screenshot, then the phone one. */
async function shots(page, name, viewport) {
  await page.setViewportSize(viewport);
  await shot(page, `${name}-desktop`, true);
  await page.setViewportSize(PHONE);
  await shot(page, `${name}-phone`, true);
  await page.setViewportSize(viewport);
}

function openPage(path, viewport = DESKTOP) {
  return openPageOf(browser, server.base, path, viewport);
}

async function rematch(id, token, action) {
  const r = await fetch(`${server.base}/api/games/${id}/rematch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, action }) });
  const text = await r.text();
  assert.equal(r.status, 200, `rematch ${action}: ${text}`);
  return JSON.parse(text);
}

test("the director console adds a directed game's rematch and answers a call in it", async () => {
  const g = await createGame(server.base, { rules: 'uscf-2020', time_control: 'G/5;d0', white: 'Ada', black: 'Bao' });
  const director = await openPage(g.urls.director, { width: 1280, height: 900 });
  director.page.on('dialog', (d) => d.accept());
  const card = director.page.locator(`.dcard[data-game="${g.id}"]`);
  await card.locator('.clock .time').first().waitFor();
  // The director ends the game (1-0 declared); the players agree on a rematch.
  await card.locator('button.declare').click();
  await waitState(server.base, g.id, (s) => s.result !== '*', 'the declared result');
  await rematch(g.id, g.tokens.white, 'offer');
  const accepted = await rematch(g.id, g.tokens.black, 'accept');
  const newId = accepted.game.id;
  // The console adds the new game, and the finished game's card links to it.
  const next = director.page.locator(`.dcard[data-game="${newId}"]`);
  await next.locator('.clock .time').first().waitFor({ timeout: 15_000 });
  assert.equal(await card.locator('p.rematch a').getAttribute('href'), `/direct/${newId}?token=${g.tokens.director}`);
  await shots(director.page, 'director-rematch-added', { width: 1280, height: 900 });
  // Bao (White in the rematch) moves and calls the director; the console answers.
  const bao = await openPage(accepted.game.url);
  await bao.page.locator('.clock.bottom .time').waitFor();
  await bao.page.fill('#moveinput', 'e2e4');
  await bao.page.press('#moveinput', 'Enter');
  await bao.page.locator('.press.ready').waitFor();
  await bao.page.locator('body').press('Space');
  await waitState(server.base, newId, (s) => s.moves.length === 1, '1. e4 in the rematch');
  await bao.page.locator('button.call-director:not([disabled])').click();
  await waitState(server.base, newId, (s) => s.called?.by === 'white', "Bao's call");
  await next.locator('.called button.resume').waitFor();
  await shots(director.page, 'director-rematch-called', { width: 1280, height: 900 });
  await next.locator('.called button.resume').click();
  await waitState(server.base, newId, (s) => !s.called && s.running === 'black', 'the call answered, the clock running');
  assert.deepEqual(director.errors, [], 'no console error on the director console');
});
