// The evening's venue page (`/events/{id}/join`, the `join` link the evening's creation
// answers): a player walking in reads how to check in and finds their board by typing part
// of their name; the page follows the evening live (no round, then round 1 the moment it
// is paired, then a result) without a reload, on a phone and a desktop.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DESKTOP, PHONE, eventApi, openPage, shot, startBrowser, startServer } from './harness.mjs';

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

const PLAYERS = ['Ada Lovelace', 'Boris Kidd', 'Carmen Ruiz', 'José Núñez', 'Eva Lindqvist', 'Farid Haddad'];

test('a player at the venue finds their board by name, live', async () => {
  const ev = await eventApi(server.base, 'POST', '/api/events', null, {
    name: 'Friday blitz', format: 'swiss', rounds: 3, time_control: 'G/5;d0', rules: 'uscf-2020', play: 'board',
  });
  assert.equal(ev.urls.join, `/events/${ev.id}/join`);
  await eventApi(server.base, 'POST', `/api/events/${ev.id}/players?check_in=true`, ev.director_token, {
    players: PLAYERS.map((name, i) => ({ name, rating: 2000 - 50 * i })),
  });
  for (const [viewport, width] of [[PHONE, 'phone'], [DESKTOP, 'desktop']]) {
    const { ctx, page, errors } = await openPage(browser, server.base, ev.urls.join, viewport);
    await page.getByRole('heading', { name: 'Welcome to Friday blitz' }).waitFor();
    await page.getByText('Scan the QR code on the card the director gives you').waitFor();
    if (width === 'phone') {
      // Nothing paired yet: said, then round 1 appears the moment it is paired.
      await page.getByText('No round is paired yet').waitFor();
      await eventApi(server.base, 'POST', `/api/events/${ev.id}/rounds`, ev.director_token);
    }
    await page.getByRole('heading', { name: 'Round 1: find your board' }).waitFor();
    const round = await eventApi(server.base, 'GET', `/api/events/${ev.id}/rounds/1`);
    assert.equal(await page.locator('li.join-board').count(), round.boards.length);
    // Typing part of a name, without its accents, leaves that player's board alone.
    const nunez = round.boards.find((b) => b.white.name === 'José Núñez' || b.black.name === 'José Núñez');
    await page.getByRole('searchbox').fill('nunez');
    // (The page draws once per animation frame: wait for the list to narrow.)
    await page.waitForFunction(() => document.querySelectorAll('li.join-board').length === 1);
    const line = await page.locator('li.join-board').textContent();
    assert.ok(line.includes(`Board ${nunez.board}`) && line.includes(nunez.white.name) && line.includes(nunez.black.name), line);
    await shot(page, `evening-join-${width}`);
    // A name no one has is said so.
    await page.getByRole('searchbox').fill('zzz');
    await page.getByText('No board this round has a player named like “zzz”.').waitFor();
    if (width === 'phone') {
      // A result arrives and shows on the board's line without a reload.
      await page.getByRole('searchbox').fill('nunez');
      await eventApi(server.base, 'POST', `/api/events/${ev.id}/rounds/1/boards/${nunez.board}/result`, ev.director_token, { result: '1-0' });
      await page.locator('li.join-board', { hasText: '1–0' }).waitFor();
      // Nothing on the page scrolls sideways on a phone.
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
    }
    assert.deepEqual(errors, []);
    await ctx.close();
  }
});
