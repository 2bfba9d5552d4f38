// The evening's projector and print views (issue 21): an evening made through the API as a
// director's console makes it, the projector open in a browser the whole time. It shows the
// players, then the pairings the moment the round is paired, the results as they come in
// and the standings once the round is complete, all without a reload; the print views are
// rendered to PDF by Chromium on A4 and Letter, and looked at in print emulation.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { writeFileSync } from 'node:fs';
import qrcode from 'qrcode-generator';
import { join } from 'node:path';
import { DESKTOP, PHONE, eventApi, openPage, pdfPages, screenshotDir, shot, startBrowser, startServer } from './harness.mjs';

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

const PLAYERS = [
  ['Ada Lovelace', 2150],
  ['Boris Kidd', 2080],
  ['Carmen Ruiz', 1990],
  ['Dmitri Orlov', 1925],
  ['Eva Lindqvist', 1870],
  ['Farid Haddad', 1810],
  ['Grace Okafor', 1760],
  ['Hiro Tanaka', 1705],
  ['Ines Moreau', 1650],
  ['Jonas Weber', 1590],
  ['Kemal Aydin', 1520],
  ['Lena Novak', 1455],
];

/** A 16:9 projector. */
const PROJECTOR = { width: 1280, height: 720 };

async function makeEvening() {
  const ev = await eventApi(server.base, 'POST', '/api/events', null, {
    name: 'Friday blitz',
    format: 'double-swiss',
    rounds: 5,
    time_control: 'G/3;d2',
    rules: 'uscf-2020',
    play: 'board',
    confirm: 'one',
  });
  assert.equal(ev.urls.projector, `/events/${ev.id}/projector`);
  const added = await eventApi(server.base, 'POST', `/api/events/${ev.id}/players`, ev.director_token, {
    players: PLAYERS.map(([name, rating]) => ({ name, rating })),
  });
  assert.equal(added.players.length, PLAYERS.length);
  return ev;
}

/** The QR code of `text` as the page's library draws it (the same library, the same settings). */
function qrSvg(text) {
  const q = qrcode(0, 'M');
  q.addData(text);
  q.make();
  return q.createSvgTag({ cellSize: 4, margin: 2, scalable: true });
}

const names = (page, sel) => page.locator(sel).allTextContents();

/** Enters a result for every game of `board` of round `r` as the director does. */
function result(ev, r, board, results) {
  return eventApi(server.base, 'POST', `/api/events/${ev.id}/rounds/${r}/boards/${board}/result`, ev.director_token, { results });
}

test('the projector follows the evening live: players, pairings, results, standings', async () => {
  const ev = await makeEvening();
  const { ctx, page, errors } = await openPage(browser, server.base, ev.urls.projector, PROJECTOR);
  const phone = await openPage(browser, server.base, ev.urls.projector, PHONE);
  // Nobody checked in yet: the players entered, none marked.
  await page.locator('main.projector[data-screen="players"]').waitFor();
  await page.getByText('12 players entered, 0 checked in').waitFor();
  // Check-ins arrive on the live socket.
  for (let n = 1; n <= PLAYERS.length; n++) await eventApi(server.base, 'POST', `/api/events/${ev.id}/players/${n}/check-in`, ev.director_token, {});
  await page.getByText('12 players entered, 12 checked in').waitFor();
  assert.equal(await page.locator('.pj-players li.in').count(), 12);
  await shot(page, 'projector-players-desktop');
  await page.evaluate(() => (window.__sameDocument = true));

  // The round is paired: its pairings come up without a reload.
  const r1 = await eventApi(server.base, 'POST', `/api/events/${ev.id}/rounds`, ev.director_token);
  await page.locator('main.projector[data-screen="pairings"]').waitFor();
  await page.getByRole('heading', { name: 'Round 1 of 5: pairings' }).waitFor();
  assert.equal(await page.locator('.pj-pairings tbody tr').count(), r1.boards.length);
  assert.deepEqual(await names(page, '.pj-pairings td.white .name'), r1.boards.map((b) => b.white.name));
  assert.deepEqual(await names(page, '.pj-pairings td.black .name'), r1.boards.map((b) => b.black.name));
  await phone.page.locator('main.projector[data-screen="pairings"]').waitFor();
  assert.deepEqual(await names(phone.page, '.pj-pairings td.white .name'), r1.boards.map((b) => b.white.name));
  await page.getByText(`round 1: 0 of ${r1.boards.length * 2} results in`).waitFor();
  await shot(page, 'projector-pairings-desktop');
  await shot(phone.page, 'projector-pairings-phone', true);

  // Results come in board by board and show on their boards.
  const outcomes = [['1-0', '1/2'], ['0-1', '0-1'], ['1/2', '1/2'], ['1-0', '1-0'], ['0-1', '1-0'], ['1-0', '0-1']];
  for (let i = 0; i < r1.boards.length - 1; i++) await result(ev, 1, r1.boards[i].board, outcomes[i]);
  const b1 = page.locator('.pj-pairings tr[data-board="1"] td.res');
  await page.locator('.pj-pairings tr[data-board="1"].done').waitFor();
  // A two-game board reads as its match score from the first-named player (issue 31):
  // game 1 won with White, game 2 drawn.
  assert.equal((await b1.textContent()).replace(/\s+/g, ''), '1½–½');
  await page.getByText(`round 1: ${(r1.boards.length - 1) * 2} of ${r1.boards.length * 2} results in`).waitFor();
  assert.equal(await page.locator('main.projector').getAttribute('data-screen'), 'pairings', 'a result missing: still the pairings');

  // The last result: the standings, as the server ranks them, with the tiebreaks.
  const last = r1.boards[r1.boards.length - 1].board;
  await result(ev, 1, last, outcomes[r1.boards.length - 1]);
  await page.locator('main.projector[data-screen="standings"]').waitFor();
  await page.getByRole('heading', { name: 'Standings after round 1 of 5' }).waitFor();
  const st = await eventApi(server.base, 'GET', `/api/events/${ev.id}/standings`);
  assert.deepEqual(await names(page, '.pj-standings td.player .name'), st.rows.map((r) => r.name));
  assert.deepEqual(await names(page, '.pj-standings th.tb'), st.tiebreaks);
  const firstPts = await page.locator('.pj-standings tbody tr').first().locator('td.pts').textContent();
  assert.equal(firstPts, String(st.rows[0].points).replace('.5', '½').replace(/^0½$/, '½'));
  await shot(page, 'projector-standings-desktop');
  await phone.page.locator('main.projector[data-screen="standings"]').waitFor();
  await shot(phone.page, 'projector-standings-phone', true);

  // Round 2: pairings again; the buttons at the foot choose by hand.
  const r2 = await eventApi(server.base, 'POST', `/api/events/${ev.id}/rounds`, ev.director_token);
  await page.getByRole('heading', { name: 'Round 2 of 5: pairings' }).waitFor();
  assert.deepEqual(await names(page, '.pj-pairings td.white .name'), r2.boards.map((b) => b.white.name));
  await result(ev, 2, r2.boards[0].board, ['1-0', '1/2']);
  await result(ev, 2, r2.boards[2].board, ['0-1', '1-0']);
  await page.locator(`.pj-pairings tr[data-board="${r2.boards[2].board}"].done`).waitFor();
  // Both games' results show whole: no result cell is cut off (a double Swiss board).
  const clipped = await page.$$eval('.pj-pairings td.res', (cells) =>
    cells.filter((c) => c.scrollWidth > c.clientWidth).map((c) => c.textContent));
  assert.deepEqual(clipped, [], 'result cells cut off');
  await page.getByRole('button', { name: 'Standings' }).click();
  await page.getByRole('heading', { name: 'Standings after round 1 of 5' }).waitFor();
  await page.getByRole('button', { name: 'Auto' }).click();
  await page.getByRole('heading', { name: 'Round 2 of 5: pairings' }).waitFor();
  await shot(page, 'projector-round2-desktop');
  // The README's picture: a 1080p projector in round 2.
  const big = await openPage(browser, server.base, ev.urls.projector, { width: 1920, height: 1080 });
  await big.page.getByRole('heading', { name: 'Round 2 of 5: pairings' }).waitFor();
  await shot(big.page, 'projector-1080p');
  await big.ctx.close();

  assert.equal(await page.evaluate(() => window.__sameDocument), true, 'the projector was never reloaded');
  assert.deepEqual(errors, []);
  assert.deepEqual(phone.errors, []);
  await ctx.close();
  await phone.ctx.close();
});

test('the projector says so when there is no such evening', async () => {
  const { ctx, page, errors } = await openPage(browser, server.base, '/events/no-such-evening/projector', PROJECTOR);
  await page.getByRole('heading', { name: 'There is no evening no-such-evening on this server.' }).waitFor();
  // The failed GET is the browser's own console line, not the page's error.
  assert.deepEqual(errors.filter((e) => !e.includes('404')), []);
  await ctx.close();
});

const A4 = { width: 595.92, height: 842.88 };
const LETTER = { width: 612, height: 792 };
/** The content width of the narrower paper (A4 less 12 mm margins) in CSS pixels. */
const CONTENT_PX = Math.floor(((210 - 24) / 25.4) * 96);

test('print views: pairings, slips, standings, crosstable and the QR codes fit A4 and Letter', async () => {
  const ev = await makeEvening();
  const id = ev.id;
  for (let n = 1; n <= PLAYERS.length; n++) await eventApi(server.base, 'POST', `/api/events/${id}/players/${n}/check-in`, ev.director_token, {});
  const r1 = await eventApi(server.base, 'POST', `/api/events/${id}/rounds`, ev.director_token);
  for (const b of r1.boards) await result(ev, 1, b.board, b.board % 2 ? ['1-0', '1/2'] : ['0-1', '0-1']);
  const r2 = await eventApi(server.base, 'POST', `/api/events/${id}/rounds`, ev.director_token);
  for (const b of r2.boards.slice(0, 3)) await result(ev, 2, b.board, ['1/2', '1-0']);
  const st = await eventApi(server.base, 'GET', `/api/events/${id}/standings`);

  const links = (await eventApi(server.base, 'GET', `/api/events/${id}/links`, ev.director_token)).players;
  const checks = {
    qr: async (page) => {
      // One card per player, each the QR code of the link the player was given.
      assert.equal(await page.locator('.pr-qr').count(), PLAYERS.length);
      for (const [i, p] of links.entries()) {
        const card = page.locator('.pr-qr').nth(i);
        const url = `${server.base}${p.link}`;
        assert.equal(await card.getAttribute('data-link'), url);
        assert.match(await card.textContent(), new RegExp(`${p.name} \\(${p.number}\\)`));
        // The modules drawn: the path of the page's SVG is the path of the link's code.
        const drawn = /\bd="([^"]+)"/.exec(await card.locator('.pr-qr-code').innerHTML())?.[1];
        const want = /\bd="([^"]+)"/.exec(qrSvg(url))[1];
        assert.ok(drawn === want, `card ${i}: the QR code is not the code of ${url}`);
      }
    },
    pairings: async (page) => {
      await page.getByRole('heading', { name: 'Friday blitz: round 2 pairings' }).waitFor();
      assert.equal(await page.locator('.pr-pairings tbody tr').count(), r2.boards.length);
      assert.equal(await page.locator('.pr-pairings tbody tr').first().locator('td').nth(1).textContent(), `${r2.boards[0].white.name} (${r2.boards[0].white.number})`);
      // Two games a board: the columns say who has White in each game, the result is the match's.
      assert.deepEqual(await page.locator('.pr-pairings thead th').allTextContents(), ['Board', 'White in game 1', 'White in game 2', 'Match']);
    },
    slips: async (page) => {
      assert.equal(await page.locator('.pr-slip').count(), r2.boards.length);
      // Two games a board: game 2 with the colours reversed.
      const s = page.locator('.pr-slip').first();
      assert.match(await s.textContent(), new RegExp(`Game 2, colours reversed \\(${r2.boards[0].black.name} White\\)`));
      // Each box names who wins it in its game: the board's White wins game 1 with 1–0
      // and game 2 with 0–1 (issue 31), so no one works out the colours to tick it.
      const b0 = r2.boards[0];
      const games = await s.locator('.pr-game').allTextContents();
      assert.match(games[0], new RegExp(`1–0 \\(${b0.white.name} wins\\).*0–1 \\(${b0.black.name} wins\\)`));
      assert.match(games[1], new RegExp(`1–0 \\(${b0.black.name} wins\\).*0–1 \\(${b0.white.name} wins\\)`));
    },
    standings: async (page) => {
      await page.getByRole('heading', { name: 'Friday blitz: standings after round 1' }).waitFor();
      assert.deepEqual(await page.locator('.pr-standings tbody tr td:nth-child(2)').allTextContents(), st.rows.map((r) => r.name));
    },
    crosstable: async (page) => {
      await page.getByRole('heading', { name: 'Friday blitz: crosstable after 2 rounds' }).waitFor();
      assert.equal(await page.locator('.pr-cross tbody tr').count(), PLAYERS.length);
      // Player 1's round 1: the opponent's number and colour as the API has them.
      const ct = await eventApi(server.base, 'GET', `/api/events/${id}/crosstable`);
      const c = ct.players[0].rounds[0];
      const cell = await page.locator('.pr-cross tbody tr').first().locator('td.rd').first().textContent();
      assert.ok(cell.startsWith(`${c.opponent}${c.colour === 'white' ? 'w' : 'b'}`), `cell ${cell} for ${JSON.stringify(c)}`);
    },
  };

  for (const [kind, check] of Object.entries(checks)) {
    const path = `/events/${id}/print/${kind}${kind === 'qr' ? `?token=${ev.director_token}` : ''}`;
    const { ctx, page, errors } = await openPage(browser, server.base, path, DESKTOP);
    await page.locator('main.print-page[data-ready="true"]').waitFor();
    await check(page);
    await shot(page, `print-${kind}-desktop`, true);
    // In print: the toolbar gone, nothing wider than A4's printable width.
    await page.setViewportSize({ width: CONTENT_PX, height: 1000 });
    await page.emulateMedia({ media: 'print' });
    assert.equal(await page.locator('nav.pr-tools').isVisible(), false, 'the toolbar is not printed');
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(wide <= CONTENT_PX, `${kind} is ${wide}px wide in print, wider than A4's ${CONTENT_PX}px`);
    await shot(page, `print-${kind}-paper`, true);
    for (const [format, size] of [['A4', A4], ['Letter', LETTER]]) {
      const pdf = await page.pdf({ format, printBackground: true });
      writeFileSync(join(screenshotDir, `print-${kind}-${format}.pdf`), pdf);
      const { count, boxes } = pdfPages(pdf);
      assert.equal(count, 1, `${kind} on ${format}: ${count} pages for 12 players`);
      for (const b of boxes) {
        assert.ok(Math.abs(b.width - size.width) < 2 && Math.abs(b.height - size.height) < 2, `${kind} on ${format}: a page of ${b.width}×${b.height} pt`);
      }
    }
    await page.emulateMedia({ media: 'screen' });
    await page.setViewportSize(PHONE);
    await shot(page, `print-${kind}-phone`, true);
    assert.deepEqual(errors, []);
    await ctx.close();
  }

  // A round that is not paired, a view that does not exist: said on the page.
  const bad = await openPage(browser, server.base, `/events/${id}/print/slips?round=9`, DESKTOP);
  await bad.page.getByText('There is no round 9 to print: rounds 1 to 2 are paired; showing round 2.').waitFor();
  assert.equal(await bad.page.locator('.pr-slip').count(), r2.boards.length);
  await bad.page.goto(`${server.base}/events/${id}/print/scoresheets`);
  await bad.page.getByText('There is no print view "scoresheets": the views are pairings, slips, standings, crosstable, qr.').waitFor();
  // The players' links are the director's: no token, no codes; a player's token, refused.
  await bad.page.goto(`${server.base}/events/${id}/print/qr`);
  await bad.page.getByText("The QR codes of the players' links are the director's to print").waitFor();
  assert.equal(await bad.page.locator('.pr-qr').count(), 0);
  const player = new URL(links[0].link, server.base).searchParams.get('token');
  await bad.page.goto(`${server.base}/events/${id}/print/qr?token=${player}`);
  await bad.page.getByText('only the event\'s director (or a deputy) may do this').waitFor();
  assert.equal(await bad.page.locator('.pr-qr').count(), 0);
  // The refused GET is the browser's own console line (403), not the page's error.
  assert.deepEqual(bad.errors.filter((e) => !e.includes('403')), []);
  await bad.ctx.close();
});

test('a long evening: 40 players, slips over several pages, a crosstable of 12 rounds in landscape', async () => {
  const ev = await eventApi(server.base, 'POST', '/api/events', null, {
    name: 'Club championship blitz',
    format: 'swiss',
    rounds: 12,
    time_control: 'G/3;d2',
    rules: 'uscf-2020',
    play: 'board',
  });
  const players = Array.from({ length: 40 }, (_, i) => ({ name: `Player ${String(i + 1).padStart(2, '0')} Longsurname-Doublebarrel`, rating: 2200 - i * 20 }));
  await eventApi(server.base, 'POST', `/api/events/${ev.id}/players?check_in=true`, ev.director_token, { players });
  for (let r = 1; r <= 12; r++) {
    const round = await eventApi(server.base, 'POST', `/api/events/${ev.id}/rounds`, ev.director_token);
    for (const b of round.boards) await result(ev, r, b.board, [['1-0', '0-1', '1/2'][(b.board + r) % 3]]);
  }
  const expect = { slips: [3, 3], pairings: [1, 1], standings: [1, 2], crosstable: [1, 2] };
  for (const [kind, [least, most]] of Object.entries(expect)) {
    const { ctx, page, errors } = await openPage(browser, server.base, `/events/${ev.id}/print/${kind}`, DESKTOP);
    await page.locator('main.print-page[data-ready="true"]').waitFor();
    await page.emulateMedia({ media: 'print' });
    for (const [format, size] of [['A4', A4], ['Letter', LETTER]]) {
      // The crosstable of more than 9 rounds asks for landscape (its @page); the dialog's choice is the printer's.
      const landscape = kind === 'crosstable';
      const pdf = await page.pdf({ format, printBackground: true, landscape });
      writeFileSync(join(screenshotDir, `print-long-${kind}-${format}.pdf`), pdf);
      const { count, boxes } = pdfPages(pdf);
      assert.ok(count >= least && count <= most, `${kind} on ${format}: ${count} pages, expected ${least} to ${most}`);
      for (const b of boxes) assert.ok(Math.abs(b.width - (landscape ? size.height : size.width)) < 2, `${kind} on ${format}: ${b.width} pt wide`);
    }
    await page.setViewportSize({ width: kind === 'crosstable' ? Math.floor(((279.4 - 24) / 25.4) * 96) : CONTENT_PX, height: 1000 });
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    const room = await page.evaluate(() => window.innerWidth);
    assert.ok(wide <= room, `${kind} of 40 players is ${wide}px wide in print, the paper has ${room}px`);
    await shot(page, `print-long-${kind}-paper`, true);
    assert.deepEqual(errors, []);
    await ctx.close();
  }
});
