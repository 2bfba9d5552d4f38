// A director sets an evening up from the web (issue 21): the lobby's "New evening" link,
// the form filled by clicks (a refusal shown in the server's words first), the console
// reached with its link to keep, the players entered from a CSV file (their links listed,
// the players in the table), a bad CSV refused naming its line and field with nobody
// entered. Screenshots at desktop and phone width go to web/screenshots/.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { shot, startBrowser, startServer, DESKTOP, PHONE, openPage } from './harness.mjs';

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
async function shots(page, name) {
  await page.setViewportSize(DESKTOP);
  await shot(page, `${name}-desktop`, true);
  await page.setViewportSize(PHONE);
  await shot(page, `${name}-phone`, true);
  await page.setViewportSize(DESKTOP);
}

/** The page's errors, less the browser's own line for each refused request (the page shows those). */
const pageErrors = (errors) => errors.filter((e) => !/Failed to load resource: the server responded with a status of (400|409)/.test(e));

test('an evening created from the lobby by clicks, its console with the link to keep, players from a CSV, a bad CSV refused', async () => {
  const { page, errors } = await openPage(browser, server.base, '/');
  await page.locator('a.new-evening').waitFor();
  await shots(page, 'lobby-new-evening');
  await page.click('a.new-evening');
  await page.waitForURL('**/events/new');
  await page.locator('#ev-rules option').first().waitFor({ state: 'attached' });

  // A Swiss: rounds asked for; nothing typed as the name: the server refuses, in its words.
  await page.selectOption('#ev-format', 'swiss');
  await page.fill('#ev-rounds', '4');
  await page.click('form.new-evening button[type=submit]');
  await page.locator('form.new-evening .error', { hasText: 'name: empty' }).waitFor();
  assert.match(page.url(), /\/events\/new$/);

  // A round robin has no rounds field; a time control the ruleset does not read is refused.
  await page.selectOption('#ev-format', 'round-robin');
  await page.locator('#ev-rounds').waitFor({ state: 'detached' });
  await page.fill('#ev-name', 'Thursday club blitz');
  await page.fill('#ev-tc', 'five minutes');
  await page.click('form.new-evening button[type=submit]');
  const tcError = await page.locator('form.new-evening .error', { hasText: 'five minutes' }).textContent();
  assert.match(tcError, /^Could not create the evening: time control "five minutes" is not in a recognised form/, tcError);
  await shots(page, 'evening-new-refused');

  // Then as a director fills it: a quick button, physical boards, both players confirm.
  await page.selectOption('#ev-format', 'swiss');
  await page.fill('#ev-rounds', '5');
  const quick = page.locator('button.quick-tc').first();
  const tc = await quick.getAttribute('data-tc');
  const quickRules = (await quick.getAttribute('title')).match(/ under (.+)$/)[1];
  await quick.click();
  await page.waitForFunction((v) => document.querySelector('#ev-tc').value === v, tc);
  await page.check('#ev-play-board');
  await page.check('#ev-confirm-both');
  // The mode is for the server's games only.
  await page.locator('#ev-mode-online').waitFor({ state: 'detached' });
  await page.check('#ev-play-server');
  await page.check('#ev-mode-online');
  await page.check('#ev-play-board');
  await page.check('#ev-auto');
  await shots(page, 'evening-new');
  await page.click('form.new-evening button[type=submit]');

  // The director console of the new evening, its link to keep shown while it has no players.
  await page.waitForURL(/\/events\/[^/]+\/direct\?token=/);
  const url = new URL(page.url());
  const id = url.pathname.split('/')[2];
  const token = url.searchParams.get('token');
  const ev = await (await fetch(`${server.base}/api/events/${id}`)).json();
  assert.equal(ev.name, 'Thursday club blitz');
  assert.equal(ev.format, 'swiss');
  assert.equal(ev.rounds, 5);
  // The quick button's ruleset and control, as the server writes them for the same body through the API.
  assert.equal(ev.rules, quickRules);
  const same = await fetch(`${server.base}/api/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'same', format: 'swiss', rounds: 5, rules: quickRules, time_control: tc, play: 'board' }),
  });
  assert.equal(same.status, 201);
  assert.equal(ev.time_control, (await (await fetch(`${server.base}/api/events/${(await same.json()).id}`)).json()).time_control);
  assert.equal(ev.play, 'board');
  assert.equal(ev.confirm, 'both');
  assert.equal(ev.auto, true);
  const keep = page.locator('section.keep-link');
  await keep.waitFor();
  assert.match(await keep.textContent(), /holds your director’s token/);
  assert.equal(await page.inputValue('#director-link'), page.url());
  // Its Copy button puts that link on the clipboard.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
  await keep.locator('button.copy').click();
  await keep.locator('button.copy', { hasText: 'Copied' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), page.url());
  await shots(page, 'evening-console-new');

  // A bad CSV: its line and field named, nobody entered.
  await page.setInputFiles('#players-file', { name: 'club.csv', mimeType: 'text/csv', buffer: Buffer.from('name,rating\nAnn Archer,2010\nBo Baker,strong\n') });
  await page.click('button.upload');
  const refusal = await page.locator('.messages .error').textContent();
  assert.match(refusal, /^club\.csv was not entered \(no player of it\): .*line 3: rating "strong" is not a whole number/, refusal);
  assert.equal(await page.locator('tr[data-player]').count(), 0);
  assert.equal((await (await fetch(`${server.base}/api/events/${id}`)).json()).players.length, 0);
  await shots(page, 'evening-console-upload-refused');

  // The good file as Excel saves it where the comma is the decimal mark (a byte-order
  // mark, semicolons, CRLF), checked in: the players in the table and each one's link
  // listed.
  await page.setInputFiles('#players-file', {
    name: 'club.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from('\ufeffrating;name;federation\r\n2010;Ann Archer;USA\r\n1875;Bo Baker;\r\n;Cy Cole;CAN\r\n'),
  });
  await page.check('#upload-checkin');
  await page.click('button.upload');
  const notice = page.locator('.messages .notice');
  await notice.waitFor();
  assert.match(await notice.textContent(), /3 players entered from club\.csv and checked in/);
  const links = await page.locator('ul.player-links li').evaluateAll((lis) => lis.map((li) => [li.querySelector('.who').textContent, li.querySelector('input').value]));
  assert.deepEqual(links.map(([name]) => name), ['Ann Archer', 'Bo Baker', 'Cy Cole']);
  for (const [, link] of links) assert.match(link, new RegExp(`^${server.base}/events/${id}/player\\?token=[0-9a-f]+$`));
  await page.locator('tr[data-player] .name', { hasText: 'Cy Cole' }).waitFor();
  assert.deepEqual((await page.locator('tr[data-player] .name').allTextContents()).sort(), ['Ann Archer', 'Bo Baker', 'Cy Cole']);
  assert.match(await page.locator('#players-title').textContent(), /3 of 3 checked in/);
  // The players are in: the notice about the link gives way to the work.
  await keep.waitFor({ state: 'detached' });
  // A TRF file (its name says so): a player already entered refuses it all, naming them.
  const trfLine = (n, name, rating) => `001 ${String(n).padStart(4)}      ${name.padEnd(33)} ${String(rating).padStart(4)}`;
  const trf = (lines) => Buffer.from(['012 Spring league', ...lines, ''].join('\n'));
  await page.setInputFiles('#players-file', { name: 'league.trf', mimeType: 'application/octet-stream', buffer: trf([trfLine(1, 'Dee Dunn', 1950), trfLine(2, 'Ann Archer', 2010)]) });
  await page.click('button.upload');
  const twice = await page.locator('.messages .error').textContent();
  assert.match(twice, /^league\.trf was not entered \(no player of it\): a player named "Ann Archer" is in the event already/, twice);
  assert.equal((await (await fetch(`${server.base}/api/events/${id}`)).json()).players.length, 3);
  await page.setInputFiles('#players-file', { name: 'league.trf', mimeType: 'application/octet-stream', buffer: trf([trfLine(1, 'Dee Dunn', 1950), trfLine(2, 'Eve Ek', 1800)]) });
  await page.click('button.upload');
  await page.locator('.messages .notice', { hasText: '2 players entered from league.trf.' }).waitFor();
  assert.deepEqual(await page.locator('ul.player-links .who').allTextContents(), ['Dee Dunn', 'Eve Ek']);
  await page.locator('tr[data-player] .name', { hasText: 'Eve Ek' }).waitFor();
  const rows = await page.locator('tr[data-player]').evaluateAll((trs) => trs.map((tr) => [tr.querySelector('.name').textContent, tr.querySelector('.status').textContent]));
  // Five players now (ordered by rating before round 1), the two of the file not checked in.
  assert.equal(rows.length, 5);
  assert.deepEqual(Object.fromEntries(rows), { 'Ann Archer': 'checked in', 'Bo Baker': 'checked in', 'Cy Cole': 'checked in', 'Dee Dunn': 'not checked in', 'Eve Ek': 'not checked in' });
  // The QR cards of every player, from the notice.
  const qrHref = await page.locator('.messages a.print-qr').getAttribute('href');
  assert.equal(qrHref, `/events/${id}/print/qr?token=${token}`);
  // A player's listed link opens their page.
  const ann = await openPage(browser, server.base, links[0][1].slice(server.base.length), PHONE);
  await ann.page.locator('h1.me', { hasText: 'Ann Archer' }).waitFor();
  await ann.ctx.close();
  // The director token the page holds directs the evening.
  const log = await fetch(`${server.base}/api/events/${id}/log`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(log.status, 200);
  await shots(page, 'evening-console-uploaded');

  assert.deepEqual(pageErrors(errors), []);
});
