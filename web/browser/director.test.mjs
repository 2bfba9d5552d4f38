// The director's evening whole in the browser (issue 31, items 1, 5, 6 and 10), at desktop
// and at phone width, each in its own browser context: an evening created in the form with
// its dates, site and TD; a rating mistyped as "19x0" refused, a mistyped 1090 fixed from
// the console (the pairing numbers follow), a player removed before round 1; players from
// a CSV with accented names; two rounds played; the US Chess and TRF files and the
// standings CSV saved from the console's menu (the download's name, the file's bytes: the
// dates, the TD, Excel's byte order mark); the report details edited; the evening found
// again at /direct/ in the same browser. Screenshots go to web/screenshots/.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { DESKTOP, PHONE, openPage, shot, startBrowser, startServer, fillSettled } from './harness.mjs';

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

/** The page's errors, less the browser's own line for each refused request (the page shows those). */
const pageErrors = (errors) => errors.filter((e) => !/Failed to load resource: the server responded with a status of (400|409)/.test(e));

/** Today as the form writes it (the browser's calendar, here the same machine's). */
function today() {
  const d = new Date();
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/** Clicks an export of the console's menu: the download's suggested name and its bytes. */
async function save(page, kind) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(`details.console-menu button.export-${kind}`)]);
  const path = await download.path();
  return { name: download.suggestedFilename(), bytes: readFileSync(path) };
}

/** The console's players, name to pairing number, as the table shows them. */
async function numbers(page) {
  const rows = await page.locator('tr[data-player]').evaluateAll((trs) => trs.map((tr) => [tr.querySelector('.name').textContent, Number(tr.dataset.player)]));
  return Object.fromEntries(rows);
}

for (const [width, viewport] of [
  ['desktop', DESKTOP],
  ['phone', PHONE],
]) {
  test(`${width}: an evening made in the form, its players corrected, its files saved from the console, found again at /direct/`, async () => {
    const { ctx, page, errors } = await openPage(browser, server.base, '/events/new', viewport);
    await page.locator('#ev-rules option').first().waitFor({ state: 'attached' });
    // The dates start at today.
    assert.equal(await page.inputValue('#ev-date'), today());
    assert.equal(await page.inputValue('#ev-end-date'), today());
    const name = `Friday Blitz Zoë ${width}`;
    await page.fill('#ev-name', name);
    await page.selectOption('#ev-format', 'swiss');
    await page.fill('#ev-rounds', '2');
    await page.selectOption('#ev-rules', 'uscf-2020');
    await fillSettled(page, '#ev-tc', 'G/5;d0');
    // An end before the start is refused, naming the field.
    await page.fill('#ev-date', '2026-11-27');
    await page.fill('#ev-end-date', '2026-11-20');
    await page.click('form.new-evening button[type=submit]');
    const order = await page.locator('form.new-evening .error', { hasText: 'end_date' }).textContent();
    assert.match(order, /report\.end_date: "2026-11-20" is before the start date "2026-11-27"/, order);
    await page.fill('#ev-end-date', '2026-11-27');
    await page.fill('#ev-site', 'Springfield Chess Club');
    await page.fill('#ev-city', 'Springfield');
    await page.fill('#ev-state', 'IL');
    await page.fill('#ev-zip', '62701');
    await page.fill('#ev-chief-arbiter', 'Dana Reyes');
    await page.fill('#ev-federation', 'USA');
    await page.fill('#ev-uscf-affiliate', 'A1234567');
    await page.fill('#ev-uscf-chief-td', '12345678');
    await shot(page, `director-new-evening-${width}`, true);
    await page.click('form.new-evening button[type=submit]');
    await page.waitForURL(/\/events\/[^/]+\/direct\?token=/);
    const url = new URL(page.url());
    const id = url.pathname.split('/')[2];
    const stem = `friday-blitz-zoe-${width}`;
    const summary = await (await fetch(`${server.base}/api/events/${id}`)).json();
    assert.equal(summary.date, '2026-11-27');
    assert.equal(summary.site, 'Springfield Chess Club');
    assert.equal(summary.report.chief_arbiter, 'Dana Reyes');

    // A rating typed "19x0" is refused, naming it; nobody is entered. Typed once the
    // console has drawn the evening it loaded (a field filled before that draw is lost,
    // as a person's would be: nobody types into a page still loading).
    await page.locator('form.add-player').waitFor();
    await fillSettled(page, '#newname', 'Bo Diaz');
    await fillSettled(page, '#newrating', '19x0');
    await page.click('form.add-player button[type=submit]');
    const refusal = await page.locator('.messages .error').textContent();
    assert.match(refusal, /rating: "19x0" is not a rating/, refusal);
    assert.equal(await page.locator('tr[data-player]').count(), 0);
    // Typed 1090 instead of 1900: entered, last of the numbers.
    await page.fill('#newrating', '1090');
    await page.click('form.add-player button[type=submit]');
    await page.locator('tr[data-player] .name', { hasText: 'Bo Diaz' }).waitFor();
    // The rest from a spreadsheet, accents and all.
    await page.setInputFiles('#players-file', {
      name: 'club.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('name,rating,uscf_id\nAnn Lee,2000,11111111\nZoë Núñez,1800,33333333\nCy Ott,1700,44444444\nDee Dunn,1600,55555555\n'),
    });
    await page.check('#upload-checkin');
    await page.click('button.upload');
    await page.locator('tr[data-player] .name', { hasText: 'Zoë Núñez' }).waitFor();
    assert.deepEqual(await numbers(page), { 'Ann Lee': 1, 'Zoë Núñez': 2, 'Cy Ott': 3, 'Dee Dunn': 4, 'Bo Diaz': 5 });

    // The mistyped rating fixed from the console; a bad one first, refused.
    await page.click('tr[data-player="5"] button.edit-player');
    const edit = page.locator('form.edit-player-form');
    await edit.waitFor();
    assert.equal(await page.inputValue('#edit-rating'), '1090');
    await page.fill('#edit-rating', '19o0');
    await edit.locator('button.save-player').click();
    assert.match(await page.locator('.messages .error').textContent(), /rating: "19o0" is not a rating/);
    await page.fill('#edit-rating', '1900');
    await page.fill('#edit-uscf-id', '22222222');
    await shot(page, `director-edit-player-${width}`, true);
    await edit.locator('button.save-player').click();
    await page.locator('.messages .notice', { hasText: 'Bo Diaz: saved. The pairing numbers follow the new rating.' }).waitFor();
    await edit.waitFor({ state: 'detached' });
    assert.deepEqual(await numbers(page), { 'Ann Lee': 1, 'Bo Diaz': 2, 'Zoë Núñez': 3, 'Cy Ott': 4, 'Dee Dunn': 5 });
    const bo = (await (await fetch(`${server.base}/api/events/${id}`)).json()).players.find((p) => p.name === 'Bo Diaz');
    assert.equal(bo.rating, 1900);
    assert.equal(bo.uscf_id, '22222222');

    // Dee never came: removed before round 1, asked twice.
    await page.click('tr[data-player="5"] button.remove-player');
    await page.locator('div.remove-ask', { hasText: 'Remove Dee Dunn (5) from the evening?' }).waitFor();
    await shot(page, `director-remove-player-${width}`, true);
    await page.click('div.remove-ask button.confirm-remove');
    await page.locator('.messages .notice', { hasText: 'Dee Dunn is removed.' }).waitFor();
    await page.locator('tr[data-player] .name', { hasText: 'Dee Dunn' }).waitFor({ state: 'detached' });
    assert.equal(await page.locator('tr[data-player]').count(), 4);

    // Two rounds, results entered on the console.
    for (const round of [1, 2]) {
      await page.click('button.start-round');
      await page.locator('#round-title', { hasText: `Round ${round}` }).waitFor();
      await page.locator(`#res-${round}-2-0`).waitFor();
      for (const board of [1, 2]) {
        await page.selectOption(`#res-${round}-${board}-0`, board === 1 ? '1-0' : '1/2');
        await page.click(`table.pairings tr[data-board="${board}"] button.enter`);
        await page.locator(`table.pairings tr[data-board="${board}"] td.result`, { hasText: board === 1 ? '1–0' : '½–½' }).waitFor();
      }
      await page.locator('#round-title', { hasText: `Round ${round} (complete)` }).waitFor();
    }
    // Nothing in the menu needs the player's links list to stay on screen: the QR cards are there.
    const menu = page.locator('details.console-menu');
    await menu.locator('summary').click();
    assert.equal(await menu.locator('a.print-qr').getAttribute('href'), `/events/${id}/print/qr?token=${url.searchParams.get('token')}`);
    for (const kind of ['pairings', 'slips', 'standings', 'crosstable']) assert.equal(await menu.locator(`a.print-${kind}`).getAttribute('href'), `/events/${id}/print/${kind}`);
    assert.equal(await menu.locator('a.show-venue').getAttribute('href'), `/events/${id}/join`);
    assert.equal(await menu.locator('a.show-projector').getAttribute('href'), `/events/${id}/projector`);
    await shot(page, `director-menu-${width}`, true);

    // The US Chess files, saved under the evening's name, dBase III, with the form's dates and TD.
    for (const [kind, table] of [
      ['uscf-event', 'THEXPORT'],
      ['uscf-section', 'TSEXPORT'],
      ['uscf-detail', 'TDEXPORT'],
    ]) {
      const f = await save(page, kind);
      assert.equal(f.name, `${stem}-${table}.DBF`);
      assert.equal(f.bytes[0], 0x03, `${kind}: dBase III`);
      assert.ok(f.bytes.length > 100, `${kind}: ${f.bytes.length} bytes`);
      const text = f.bytes.toString('latin1');
      if (kind === 'uscf-event') for (const s of ['20261127', 'A1234567', 'Springfield', 'IL', '62701', '12345678']) assert.ok(text.includes(s), `${s} in THEXPORT`);
      if (kind === 'uscf-detail') for (const s of ['NUNEZ, ZOE', '22222222', 'DIAZ, BO']) assert.ok(text.includes(s), `${s} in TDEXPORT: ${text}`);
    }
    await page.locator('.messages .notice', { hasText: `${stem}-TDEXPORT.DBF is saved` }).waitFor();
    const trf = await save(page, 'trf');
    assert.equal(trf.name, `${stem}.trf`);
    const trfText = trf.bytes.toString('utf8');
    for (const line of ['022 Springfield Chess Club', '032 USA', '042 2026/11/27', '052 2026/11/27', '102 Dana Reyes']) assert.ok(trfText.split('\n').some((l) => l.trimEnd() === line), `${line} in ${trfText}`);
    const pgn = await save(page, 'pgn');
    assert.equal(pgn.name, `${stem}.pgn`);
    assert.match(pgn.bytes.toString('utf8'), /\[Date "2026\.11\.27"\]/);
    // The standings CSV as Excel opens it: the byte order mark says UTF-8, the accents read.
    const csv = await save(page, 'csv');
    assert.equal(csv.name, `${stem}.standings.csv`);
    assert.deepEqual([...csv.bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    const excel = new TextDecoder('utf-8', { ignoreBOM: false }).decode(csv.bytes);
    assert.match(excel, /^rank,/);
    assert.match(excel, /Zoë Núñez/);

    // The report details: what the form set, edited later (a new city).
    const details = page.locator('section.report-details');
    assert.match(await details.textContent(), /2026-11-27/);
    await details.locator('button.edit-details').click();
    assert.equal(await page.inputValue('#rep-date'), '2026-11-27');
    await page.fill('#rep-city', 'Peoria');
    await page.fill('#rep-end-date', '2026-11-28');
    await shot(page, `director-report-details-${width}`, true);
    await details.locator('button.save-details').click();
    await page.locator('.messages .notice', { hasText: 'The report details are saved' }).waitFor();
    await details.locator('dd', { hasText: 'Peoria' }).waitFor();
    assert.match(await details.textContent(), /2026-11-27 to 2026-11-28/);
    // Without the ZIP code the US Chess file is refused, in words that say where to set it.
    await details.locator('button.edit-details').click();
    await page.fill('#rep-zip', '');
    await details.locator('button.save-details').click();
    // Saved: the form gives way to the details as they are, without the ZIP code.
    await details.locator('button.edit-details').waitFor();
    await details.locator('dd', { hasText: '62701' }).waitFor({ state: 'detached' });
    await page.click('details.console-menu button.export-uscf-event');
    const missing = await page.locator('.messages .error').textContent();
    assert.match(missing, /^US Chess THEXPORT\.DBF could not be made: the US Chess report cannot be made: the US Chess report needs the ZIP code .*Report details/, missing);
    await details.locator('button.edit-details').click();
    await page.fill('#rep-zip', '62701');
    await details.locator('button.save-details').click();
    await page.locator('.messages .notice', { hasText: 'The report details are saved' }).waitFor();
    await details.locator('dd', { hasText: '62701' }).waitFor();
    assert.equal((await save(page, 'uscf-event')).bytes[0], 0x03);
    const trf2 = (await save(page, 'trf')).bytes.toString('utf8');
    assert.ok(trf2.includes('052 2026/11/28'), trf2);
    // The menu is still there after all that (its QR cards link did not vanish).
    assert.equal(await menu.locator('a.print-qr').count(), 1);

    // The evening found again in this browser: the lobby's Director console (/direct/), its console one click away.
    const lost = await ctx.newPage();
    await lost.goto(`${server.base}/`);
    await lost.click('a.console[href="/direct/"]');
    await lost.waitForURL(`${server.base}/direct/`);
    const mine = lost.locator(`section.remembered li[data-evening="${id}"] a.console`);
    await mine.waitFor();
    assert.equal(await mine.textContent(), name);
    assert.match(await lost.locator('section.remembered .this-browser').textContent(), /this browser only/);
    await shot(lost, `director-direct-list-${width}`, true);
    await mine.click();
    await lost.waitForURL(/\/events\/[^/]+\/direct\?token=/);
    assert.equal(lost.url(), page.url());
    await lost.locator('.ev-summary').waitFor();
    // Forgotten in this browser: gone from the list, after a reload too (the evening stays).
    await lost.goto(`${server.base}/direct/`);
    await lost.click(`section.remembered li[data-evening="${id}"] button.forget`);
    await lost.locator(`section.remembered li[data-evening="${id}"]`).waitFor({ state: 'detached' });
    await lost.reload();
    await lost.locator('section.remembered').waitFor();
    assert.equal(await lost.locator(`li[data-evening="${id}"]`).count(), 0);
    assert.equal((await fetch(`${server.base}/api/events/${id}`)).status, 200);
    // Another browser (a fresh context) does not have it.
    const other = await openPage(browser, server.base, '/direct/', viewport);
    await other.page.locator('section.remembered').waitFor();
    assert.equal(await other.page.locator(`li[data-evening="${id}"]`).count(), 0);
    await other.ctx.close();

    assert.deepEqual(pageErrors(errors), []);
    await ctx.close();
  });
}
