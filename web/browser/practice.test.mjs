// A practice game against the built-in opponent with training on: the computer plays an
// illegal move, the player claims it through the page, and the page says the claim was
// right and cites the rule.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { shot, startBrowser, startServer, waitState } from './harness.mjs';

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

test('practice with training: claim the computer\'s illegal move', async () => {
  const r = await fetch(`${server.base}/api/practice`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    // illegal_rate 1: the computer's first move is illegal, so the test need not wait for chance.
    body: JSON.stringify({
      setup: { rules: 'uscf-2020', time_control: 'G/5;d0', white: 'Ada', director: false },
      computer: { color: 'black', level: 1, training: true, illegal_rate: 1, seed: 7 },
    }),
  });
  assert.equal(r.status, 201, await r.clone().text());
  const g = await r.json();
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 820 } });
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(server.base + g.urls.white);
  await page.locator('.clock.bottom .time').waitFor();
  await page.fill('#moveinput', 'd2d4');
  await page.press('#moveinput', 'Enter');
  await page.locator('.press.ready').waitFor();
  await page.click('.press');
  // The computer answers with an illegal move and presses; the page offers the claim.
  const s = await waitState(server.base, g.id, (st) => st.moves.length === 2, "the computer's move");
  assert.equal(s.moves[1].san, undefined, `the computer's move ${s.moves[1].uci} should be illegal`);
  const claim = page.locator('button[data-claim="illegal"]');
  await claim.waitFor();
  await shot(page, 'practice-desktop');
  await page.locator('body').press('i');
  const done = await waitState(server.base, g.id, (st) => st.result !== '*', 'the claim decided');
  assert.equal(done.result, '1-0');
  await page.locator('.notice.good', { hasText: 'Your claim of an illegal move' }).waitFor();
  await page.locator('.notice .cite', { hasText: done.rule }).waitFor();
  // The citation opens the rule's summary.
  await page.locator('.notice .cite').click();
  await page.locator('dialog.rule-dialog .rule-summary').filter({ hasNotText: 'Loading' }).waitFor();
  const summary = await page.locator('dialog.rule-dialog .rule-summary').textContent();
  assert.ok(summary && !summary.startsWith('No summary'), `summary: ${summary}`);
  assert.deepEqual(errors, []);
  await ctx.close();
});
