// The lobby's open challenges and the call for the director, through the pages of the
// real server: a challenge opened in one browser context and accepted in another lands
// both players on the game; a player calls the director, the director console shows the
// call and resumes the clock. Screenshots go to web/screenshots/.
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

/** A page of this file's server in this file's browser. */
function openPage(path, viewport = DESKTOP) {
  return openPageOf(browser, server.base, path, viewport);
}

test('a challenge opened in one browser and accepted in another brings both to the game', async () => {
  const ann = await openPage('/');
  await ann.page.fill('#myname', 'Ann');
  await ann.page.selectOption('#color', 'white');
  await ann.page.click('button.open-challenge');
  await ann.page.waitForURL(/\/challenge\/[0-9a-f]+\?secret=/);
  await ann.page.locator('.waiting', { hasText: 'waiting for someone' }).waitFor();
  await shot(ann.page, 'challenge-waiting-desktop');
  const phoneWait = await openPage(new URL(ann.page.url()).pathname + new URL(ann.page.url()).search, PHONE);
  await phoneWait.page.locator('.waiting', { hasText: 'waiting for someone' }).waitFor();
  await shot(phoneWait.page, 'challenge-waiting-phone');
  await phoneWait.ctx.close();

  const bo = await openPage('/');
  await bo.page.fill('#myname', 'Bo');
  const line = bo.page.locator('ul.challenges li', { hasText: 'Ann' });
  await line.waitFor();
  assert.match(await line.textContent(), /uscf-2020 · G\/5;d0 · over the board · White for Ann, so you play Black/);
  await shot(bo.page, 'lobby-challenges-desktop');
  const phoneLobby = await openPage('/', PHONE);
  await phoneLobby.page.locator('ul.challenges li', { hasText: 'Ann' }).waitFor();
  await shot(phoneLobby.page, 'lobby-challenges-phone', true);
  await phoneLobby.ctx.close();

  await line.locator('button.accept-challenge').click();
  await bo.page.waitForURL(/\/play\/[0-9a-f]+\?token=/);
  await ann.page.waitForURL(/\/play\/[0-9a-f]+\?token=/, { timeout: 10_000 });
  const gameId = new URL(bo.page.url()).pathname.split('/')[2];
  assert.equal(new URL(ann.page.url()).pathname.split('/')[2], gameId, 'both on the same game');
  await ann.page.locator('.game-title', { hasText: 'you play white' }).waitFor();
  await bo.page.locator('.game-title', { hasText: 'you play black' }).waitFor();
  await ann.page.locator('.clock.bottom .who', { hasText: 'Ann' }).waitFor();
  await ann.page.locator('.clock.top .who', { hasText: 'Bo' }).waitFor();
  // A challenge's game has no director: the creator holds no director link.
  const dirs = await ann.page.evaluate(() => JSON.parse(localStorage.getItem('flagfall.director') ?? '{}'));
  assert.equal(dirs[gameId], undefined, 'the creator is not the director');
  // The challenge is gone from the lobby; the game is listed with its players.
  const lobby = await openPage('/');
  await lobby.page.locator('ul.challenges li.empty').waitFor();
  await lobby.page.locator('ul.games.live li', { hasText: 'Ann – Bo' }).waitFor();
  assert.match(await lobby.page.locator('ul.games.live li', { hasText: 'Ann – Bo' }).textContent(), /uscf-2020 · G\/5;d0 · over the board/);
  for (const p of [ann, bo, lobby]) assert.deepEqual(p.errors, []);
  for (const p of [ann, bo, lobby]) await p.ctx.close();
});

test('a player calls the director: the console shows the call and resumes the clock', async () => {
  const g = await createGame(server.base, { rules: 'blitz-2006', time_control: '5|0', white: 'Ada', black: 'Bao' });
  const white = await openPage(g.urls.white);
  const black = await openPage(g.urls.black);
  const director = await openPage(g.urls.director);
  for (const p of [white, black]) await p.page.locator('.clock.bottom .time').waitFor();
  await director.page.locator('.dcard .dclocks .time').first().waitFor();
  await white.page.fill('#moveinput', 'e2e4');
  await white.page.press('#moveinput', 'Enter');
  await white.page.locator('.press.ready').waitFor();
  await white.page.locator('body').press('Space');
  await waitState(server.base, g.id, (s) => s.moves.length === 1, '1. e4');
  // Black types why and calls (the button; the key is c).
  await black.page.fill('#callreason', 'my opponent keeps talking');
  await black.page.click('button.call-director');
  const called = await waitState(server.base, g.id, (s) => s.called, 'the call');
  assert.equal(called.called.by, 'black');
  assert.equal(called.running, null);
  for (const p of [white, black]) await p.page.locator('.called', { hasText: 'Black called the director: “my opponent keeps talking”' }).waitFor();
  assert.equal(await black.page.locator('button.call-director').isDisabled(), true);
  await black.page.locator('.rulings li', { hasText: 'calls the director' }).locator('.cite', { hasText: 'blitz-2006 10' }).waitFor();
  const card = director.page.locator('.dcard.has-call');
  await card.locator('.called', { hasText: 'Black called the director' }).waitFor();
  await shot(black.page, 'game-called-desktop');
  await shot(director.page, 'director-called-desktop');
  const phone = await openPage(g.urls.black, PHONE);
  await phone.page.locator('.called', { hasText: 'Black called the director' }).waitFor();
  await shot(phone.page, 'game-called-phone', true);
  const phoneDir = await openPage(g.urls.director, PHONE);
  await phoneDir.page.locator('.dcard.has-call .called').waitFor();
  await shot(phoneDir.page, 'director-called-phone', true);
  await phone.ctx.close();
  await phoneDir.ctx.close();
  // The director answers the call from the console: the clock runs again.
  await card.locator('button.resume').click();
  const resumed = await waitState(server.base, g.id, (s) => !s.called && s.running === 'black', 'the clock resumed');
  assert.equal(resumed.rulings.at(-1).kind, 'clock');
  await director.page.locator('.dcard:not(.has-call)').waitFor();
  await black.page.locator('.called').waitFor({ state: 'hidden' });
  assert.equal(await black.page.locator('button.call-director').isDisabled(), false);
  // The keyboard shortcut calls again.
  await black.page.locator('body').press('c');
  await waitState(server.base, g.id, (s) => s.called && s.called.by === 'black' && !s.called.reason, 'the second call');
  for (const p of [white, black, director]) assert.deepEqual(p.errors, []);
  for (const p of [white, black, director]) await p.ctx.close();
});
