// A player whose frames outrun the server's rate limit (here 1 a second, bursts of 2):
// the server drops a frame unread and answers an `error` that cannot name it; the board
// sends what is still unanswered again a second later, so the move, the draw offer and
// the press all reach the game and the opponent sees the offer. Desktop and phone;
// screenshots go to web/screenshots/.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { clickSquare, createGame, shot, startBrowser, startServer, waitState, DESKTOP, PHONE, openPage } from './harness.mjs';

let server;
let browser;

before(async () => {
  server = await startServer(['--socket-rate', '1']);
  browser = await startBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

async function droppedFrames() {
  const text = await (await fetch(`${server.base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('flagfall_frame_errors_total'));
  return Number(line?.split(' ')[1] ?? 0);
}

test('a frame dropped by the rate limit is sent again: move, draw offer and press all arrive', async () => {
  const g = await createGame(server.base, { rules: 'uscf-2020', time_control: 'G/5;d0', white: 'Ada', black: 'Bao' });
  const white = await openPage(browser, server.base, g.urls.white, DESKTOP);
  const black = await openPage(browser, server.base, g.urls.black, PHONE);
  for (const p of [white, black]) await p.page.locator('.clock.bottom .time').waitFor();
  const before = await droppedFrames();
  // The move, the offer and the press as fast as hands go: with the page's first ping,
  // more than the two frames the limit allows at once.
  await clickSquare(white.page, 'e2', 'white');
  await clickSquare(white.page, 'e4', 'white');
  await white.page.locator('.press.ready').waitFor();
  await white.page.click('.offers button.offer');
  await white.page.click('.press');
  const s = await waitState(server.base, g.id, (st) => st.moves.length === 1 && st.clock.running === 'black', 'e4 pressed', 15_000);
  assert.equal(s.moves[0].uci, 'e2e4');
  await black.page.locator('.offers button.accept').waitFor({ timeout: 15_000 });
  assert.ok((await droppedFrames()) > before, 'the server dropped at least one of the frames');
  await shot(white.page, 'ratelimit-resent-desktop');
  await shot(black.page, 'ratelimit-offer-phone', true);
  for (const p of [white, black]) {
    assert.deepEqual(p.errors, []);
    await p.ctx.close();
  }
});
