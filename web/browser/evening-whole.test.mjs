// Issue 31, "How it must be shown": a club's evening whole in the browser, as a new
// director and twelve players run it, with no call outside the browser. A director (one
// browser context) makes a 6-round double Swiss from the lobby through the creation
// form, enters the twelve players from a CSV file, hands out their links; each player
// (a browser context of their own, a phone) opens their link and checks in; each round is
// started from the console and its results are reported from the phones (both players
// confirm); then the standings, the crosstable and the exports. A separate evening of 30
// players on a 1920x1080 projector (15 boards). Screenshots at desktop, phone and
// projector size go to web/screenshots/ (evening-whole-*).
//
// The flow is a list of named steps sharing one state (`STEPS` below, run in order as
// subtests), so that the steps of features still to come (corrections of an earlier
// round, players edited, byes asked from a phone, results in a player's own terms, the
// export menu) can be put in where they belong.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DESKTOP, PHONE, openPage, shot, startBrowser, startServer } from './harness.mjs';

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
const ROUNDS = 6;

const TWELVE = [
  ['Ada Lovelace', 2150],
  ['Boris Kidd', 2080],
  ['Carmen Ruiz', 1990],
  ['Dmitri Orlov', 1925],
  ['Eva Lindqvist', 1870],
  ['Farid Haddad', 1810],
  ['Grace Okafor', 1760],
  ['Hiro Tanaka', 1705],
  ['Inès Moreau', 1650],
  ['Jonas Weber', 1590],
  ['Kemal Aydın', 1520],
  ['Lena Novák', 1455],
];

/** The result (White's first, as the phones ask it) of game `g` (0 or 1) of board `b` in round `r`. */
const resultOf = (r, b, g) => ['1-0', '0-1', '1/2', '1-0', '0-1'][(r * 7 + b * 3 + g) % 5];

/** Both the desktop and the phone: a screenshot of each. */
async function shots(page, name) {
  await shot(page, `${name}-${page.viewportSize().width < 700 ? 'phone' : 'desktop'}`, true);
}

/** The evening's state as the steps build it. */
const s = { director: null, id: null, token: null, links: {}, phones: {}, paired: 0 };

/** Every page opened, closed at the end; each must have had no error. */
const opened = [];
async function open(path, viewport) {
  const p = await openPage(browser, server.base, path, viewport);
  opened.push(p);
  return p;
}

const STEPS = [
  [
    'the director makes the evening from the lobby through the form',
    async () => {
      const d = await open('/', DESKTOP);
      s.director = d;
      await d.page.click('a.button.new-evening');
      await d.page.waitForURL(/\/events\/new$/);
      await d.page.locator('button.quick-tc').first().waitFor();
      await d.page.fill('#ev-name', 'Friday double Swiss');
      await d.page.selectOption('#ev-format', 'double-swiss');
      await d.page.fill('#ev-rounds', String(ROUNDS));
      await d.page.selectOption('#ev-rules', 'fide-b3');
      await d.page.fill('#ev-tc', '3+2');
      await d.page.check('#ev-play-board');
      await d.page.check('#ev-confirm-both');
      await shots(d.page, 'evening-whole-form');
      await d.page.click('form.new-evening button[type=submit]');
      await d.page.waitForURL(/\/events\/[^/]+\/direct\?token=/);
      const url = new URL(d.page.url());
      s.id = url.pathname.split('/')[2];
      s.token = url.searchParams.get('token');
      await d.page.locator('section.keep-link').waitFor();
    },
  ],
  [
    'the director enters the twelve players from a CSV file and reads their links',
    async () => {
      const page = s.director.page;
      const csv = `name,rating\n${TWELVE.map(([n, r]) => `${n},${r}`).join('\n')}\n`;
      await page.setInputFiles('#players-file', { name: 'club.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
      await page.click('button.upload');
      await page.locator('.messages .notice', { hasText: '12 players entered from club.csv' }).waitFor();
      const links = await page.locator('ul.player-links li').evaluateAll((lis) => lis.map((li) => [li.querySelector('.who').textContent, li.querySelector('input').value]));
      assert.equal(links.length, 12);
      for (const [name, link] of links) s.links[name] = link;
      await shots(page, 'evening-whole-players');
    },
  ],
  [
    'each player opens their link on a phone and checks in',
    async () => {
      for (const [name] of TWELVE) {
        const url = new URL(s.links[name]);
        const p = await open(url.pathname + url.search, PHONE);
        s.phones[name] = p;
        await p.page.locator('h1.me', { hasText: name }).waitFor();
        await p.page.click('button.check-in');
        await p.page.locator('.checkin .check-out').waitFor();
      }
      await s.director.page.locator('#players-title', { hasText: '12 of 12 checked in' }).waitFor();
      await shots(s.phones[TWELVE[0][0]].page, 'evening-whole-checked-in');
    },
  ],
  ...Array.from({ length: ROUNDS }, (_, i) => [
    `round ${i + 1}: started from the console, both results of each board reported from both phones`,
    async () => {
      const r = i + 1;
      const cons = s.director.page;
      await cons.click('button.start-round');
      await cons.locator('#round-title', { hasText: `Round ${r}` }).waitFor();
      s.paired = r;
      const round = await (await fetch(`${server.base}/api/events/${s.id}/rounds/${r}`)).json();
      assert.equal(round.boards.length, 6);
      for (const b of round.boards) {
        const results = [resultOf(r, b.board, 0), resultOf(r, b.board, 1)];
        for (const name of [b.white.name, b.black.name]) {
          const page = s.phones[name].page;
          await page.locator('.boardno .number', { hasText: String(b.board) }).waitFor();
          await page.locator('section.report').waitFor();
          for (let g = 0; g < 2; g++) await page.locator(`.choose[aria-label="game ${g + 1}"] button.pick[data-result="${results[g]}"]`).click();
          await page.click('button.send-report');
          // Said on the page: the report waits for the opponent's, or (the second) the result is in.
          await page.waitForFunction(() => document.querySelector('.reported') || !document.querySelector('section.report'));
        }
        await cons.locator(`table.pairings tr[data-board="${b.board}"] td.result`, { hasText: results.map((x) => (x === '1/2' ? '½–½' : x.replace('-', '–'))).join(' · ') }).waitFor();
      }
      await cons.locator('#round-title', { hasText: `Round ${r} (complete)` }).waitFor();
      if (r === 1 || r === ROUNDS) {
        await shots(cons, `evening-whole-round${r}`);
        await shots(s.phones[round.boards[0].white.name].page, `evening-whole-round${r}`);
      }
    },
  ]),
  [
    'the standings and the crosstable after the last round, as the console and the print views show them',
    async () => {
      const cons = s.director.page;
      await cons.locator('#st-title', { hasText: `Standings after round ${ROUNDS}` }).waitFor();
      const st = await (await fetch(`${server.base}/api/events/${s.id}/standings`)).json();
      assert.deepEqual(await cons.locator('table.standings td.name').allTextContents(), st.rows.map((r) => r.name));
      const total = st.rows.reduce((a, r) => a + r.points, 0);
      assert.equal(total, 6 * 2 * ROUNDS, 'two points a board a round');
      const print = await open(`/events/${s.id}/print/standings`, DESKTOP);
      await print.page.locator('.pr-standings tbody tr').first().waitFor();
      assert.equal(await print.page.locator('.pr-standings tbody tr').count(), 12);
      await shots(print.page, 'evening-whole-print-standings');
      const cross = await open(`/events/${s.id}/print/crosstable`, DESKTOP);
      await cross.page.locator('.pr-cross tbody tr').first().waitFor();
      assert.equal(await cross.page.locator('.pr-cross tbody tr').count(), 12);
      await shots(cross.page, 'evening-whole-print-crosstable');
      const phone = s.phones[TWELVE[0][0]].page;
      await phone.locator('p.score', { hasText: 'of 12' }).waitFor();
      await shots(phone, 'evening-whole-final');
    },
  ],
  [
    "the exports downloaded from the console's links: TRF, PGN and the standings CSV",
    async () => {
      const cons = s.director.page;
      for (const [label, check] of [
        ['TRF', (t) => assert.match(t, /^012 Friday double Swiss/m)],
        ['PGN', (t) => assert.equal((t.match(/\[Round "/g) ?? []).length, 6 * 2 * ROUNDS)],
        ['Standings CSV', (t) => assert.equal(t.trim().split('\n').length, 13)],
      ]) {
        const [download] = await Promise.all([cons.waitForEvent('download'), cons.locator('section.tools a', { hasText: new RegExp(`^${label}$`) }).click()]);
        const stream = await download.createReadStream();
        const chunks = [];
        for await (const c of stream) chunks.push(c);
        check(Buffer.concat(chunks).toString('utf8'));
      }
    },
  ],
  [
    'a separate evening of 30 players on a 1920x1080 projector: 15 boards, then the standings',
    async () => {
      const d = await open('/events/new', DESKTOP);
      await d.page.locator('button.quick-tc').first().waitFor();
      await d.page.fill('#ev-name', 'Thirty on the big screen');
      await d.page.selectOption('#ev-format', 'swiss');
      await d.page.fill('#ev-rounds', '5');
      await d.page.check('#ev-play-board');
      await d.page.click('form.new-evening button[type=submit]');
      await d.page.waitForURL(/\/events\/[^/]+\/direct\?token=/);
      const id = new URL(d.page.url()).pathname.split('/')[2];
      const names = Array.from({ length: 30 }, (_, i) => (i === 0 ? 'Alexandra Konstantinopoulou-Vasquez' : `Member ${i + 1}`));
      await d.page.setInputFiles('#players-file', { name: 'thirty.csv', mimeType: 'text/csv', buffer: Buffer.from(`name,rating\n${names.map((n, i) => `${n},${2200 - 20 * i}`).join('\n')}\n`) });
      await d.page.check('#upload-checkin');
      await d.page.click('button.upload');
      await d.page.locator('#players-title', { hasText: '30 of 30 checked in' }).waitFor();
      const proj = await open(`/events/${id}/projector`, PROJECTOR);
      await d.page.click('button.start-round');
      await proj.page.getByRole('heading', { name: 'Round 1 of 5: pairings' }).waitFor();
      assert.equal(await proj.page.locator('.pj-pairings tbody tr').count(), 15);
      await shot(proj.page, 'evening-whole-projector-pairings-1080p');
      for (let b = 1; b <= 15; b++) {
        await d.page.selectOption(`#res-1-${b}-0`, b % 3 === 0 ? '1/2' : '1-0');
        await d.page.click(`table.pairings tr[data-board="${b}"] button.enter`);
        await d.page.locator(`table.pairings tr[data-board="${b}"] td.result`, { hasText: '–' }).waitFor();
      }
      await proj.page.getByRole('heading', { name: 'Standings after round 1 of 5' }).waitFor();
      assert.equal(await proj.page.locator('.pj-standings tbody tr').count(), 30);
      assert.equal(await proj.page.locator('.pj-standings').count(), 2, 'in two columns');
      await shot(proj.page, 'evening-whole-projector-standings-1080p');
    },
  ],
];

test('a club evening whole in the browser: a director and twelve players, a 6-round double Swiss from the lobby to the exports', async (t) => {
  let failed = null;
  for (const [name, step] of STEPS) {
    await t.test(name, async () => {
      // Each step stands on the ones before it.
      assert.equal(failed, null, `an earlier step failed: ${failed}`);
      try {
        await step();
      } catch (e) {
        failed = name;
        throw e;
      }
    });
  }
  assert.equal(failed, null);
  for (const p of opened) assert.deepEqual(p.errors, [], 'no error on any page');
  for (const p of opened) await p.ctx.close();
});
