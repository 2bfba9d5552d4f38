// Where things sit on the game page, looked at as a person looks: the "Sound starts after
// your first click" hint covers nothing (not the top clock on a phone, not the header's
// controls, not the board, not the press button) at desktop, phone and an in-between
// width, and hiding it after the first click does not move the board under the finger.
// Every control of every page, at desktop and phone width, can be clicked: nothing covers
// it and nothing sticks out of the screen. Screenshots go to web/screenshots/.
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

function openPage(path, viewport) {
  return openPageOf(browser, server.base, path, viewport);
}

/** Whether two boxes share any area (touching edges do not count). */
function intersects(a, b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** Every box of `selector` on the page that is shown. */
async function boxes(page, selector) {
  const out = [];
  for (const l of await page.locator(selector).all()) {
    const b = await l.boundingBox();
    if (b && b.width > 0 && b.height > 0) out.push(b);
  }
  return out;
}

// What the hint must never cover, where the page has it.
const NEIGHBOURS = ['.clock.top', '.clock.bottom', '.board-wrap', '.press', 'header.top .brand', 'header.top .game-title', 'header.top .conn', 'header.top .mute', 'button.flip'];

const WIDTHS = [
  ['phone', PHONE],
  ['desktop', DESKTOP],
  // Just above the phone layout's breakpoint: the header's row is at its fullest.
  ['narrow', { width: 780, height: 900 }],
];

test('the sound hint covers nothing and the board stays put when it goes, at every width', async () => {
  const otb = await createGame(server.base, { rules: 'uscf-2020', time_control: 'G/5;d0', white: 'Ada Lovelace-Byron', black: 'Bao Nguyen' });
  const online = await createGame(server.base, { rules: 'fide-b3', time_control: '3+2', mode: 'online', white: 'Ada', black: 'Bao' });
  const pages = [
    ['otb-white', otb.urls.white],
    ['online-black', online.urls.black],
    ['spectator', otb.urls.spectator],
  ];
  for (const [widthName, viewport] of WIDTHS) {
    for (const [pageName, url] of pages) {
      const where = `${pageName} at ${widthName} (${viewport.width}px)`;
      const p = await openPage(url, viewport);
      await p.page.locator('.clock.top .time').waitFor();
      const hint = p.page.locator('.soundhint');
      // Before any click the browser holds sound back, and the page says so.
      assert.ok(await hint.isVisible(), `${where}: the hint is not shown before the first click`);
      const hintBox = await hint.boundingBox();
      assert.ok(hintBox.x >= 0 && hintBox.x + hintBox.width <= viewport.width, `${where}: the hint leaves the screen: ${JSON.stringify(hintBox)}`);
      let checked = 0;
      for (const sel of NEIGHBOURS) {
        for (const b of await boxes(p.page, sel)) {
          checked++;
          assert.ok(!intersects(hintBox, b), `${where}: the hint ${JSON.stringify(hintBox)} covers ${sel} ${JSON.stringify(b)}`);
        }
      }
      // The clocks, the board and the header's controls were all there to be checked.
      assert.ok(checked >= 7, `${where}: only ${checked} boxes checked`);
      await shot(p.page, `soundhint-${pageName}-${widthName}`);

      // The first click (on the top clock, as a hand resting on the page would) lets sound
      // start: the hint goes, and nothing below it moves.
      const boardBefore = await p.page.locator('.board-wrap').boundingBox();
      const clockBefore = await p.page.locator('.clock.top').boundingBox();
      await p.page.locator('.clock.top .who').click();
      await hint.waitFor({ state: 'hidden', timeout: 3000 });
      assert.deepEqual(await p.page.locator('.board-wrap').boundingBox(), boardBefore, `${where}: the board moved when the hint went`);
      assert.deepEqual(await p.page.locator('.clock.top').boundingBox(), clockBefore, `${where}: the top clock moved when the hint went`);
      assert.deepEqual(p.errors, [], `${where}: page errors`);
      await p.ctx.close();
    }
  }
});

/** POST `body` as JSON to `path`; the answer's JSON (status checked). */
async function post(path, body, status = 201) {
  const r = await fetch(server.base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(r.status, status, `${path}: ${await r.clone().text()}`);
  return r.json();
}

/**
 * Every control a person may use on the page now: visible buttons (enabled), links,
 * inputs, selects and the keyboard help's summary.
 */
async function controlsOf(page) {
  const out = [];
  for (const l of await page.locator('button, a[href], input, select, summary').all()) {
    if (!(await l.isVisible())) continue;
    if (!(await l.isEnabled().catch(() => true))) continue;
    const label = await l.evaluate((el) => `${el.tagName.toLowerCase()}${el.className ? '.' + String(el.className).trim().split(/\s+/).join('.') : ''} "${(el.getAttribute('aria-label') || el.textContent || el.getAttribute('placeholder') || el.getAttribute('name') || '').trim().slice(0, 40)}"`);
    out.push({ l, label });
  }
  return out;
}

test('every control on every page can be reached and clicked at desktop and phone width: nothing covers it, nothing sticks out', async () => {
  for (const [widthName, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ]) {
    // Each width its own games: a page's controls are looked at as they stand.
    const otb = await createGame(server.base, { rules: 'uscf-2020', time_control: 'G/5;d0', white: 'Ada', black: 'Bao' });
    const online = await createGame(server.base, { rules: 'fide-b3', time_control: '3+2', mode: 'online', white: 'Ada', black: 'Bao' });
    const practice = await post('/api/practice', {
      setup: { rules: 'uscf-2020', time_control: 'G/5;d0', white: 'Ada', director: false },
      computer: { color: 'black', level: 1, training: false, seed: 3 },
    });
    const challenge = await post('/api/challenges', { rules: 'fide-b3', time_control: '3+2', name: 'Cy' });
    // A new evening, no players yet: its console shows the link to keep and the upload.
    const evening = await post('/api/events', { name: 'Layout evening', format: 'swiss', rounds: 3, rules: 'uscf-2020', time_control: 'G/5;d0', play: 'board' });
    const pages = [
      ['new-evening', '/events/new', 'button.quick-tc'],
      ['evening-console', evening.urls.director, 'section.keep-link button.copy'],
      ['lobby', '/', 'form.create button[type=submit]'],
      ['challenge', challenge.url, 'button'],
      ['otb-white', otb.urls.white, '.press'],
      ['otb-black', otb.urls.black, '.clock.bottom .time'],
      ['online-white', online.urls.white, '.clock.bottom .time'],
      ['spectator', otb.urls.spectator, 'button.flip'],
      // The card shows before its game's state arrives; its controls come with the state.
      ['director', otb.urls.director, `.dcard[data-game="${otb.id}"] button`],
      ['practice', practice.urls.white, '.clock.bottom .time'],
    ];
    for (const [name, url, ready] of pages) {
      const where = `${name} at ${widthName}`;
      const p = await openPage(url, viewport);
      await p.page.locator(ready).first().waitFor();
      // Nothing wider than the screen: no sideways scrolling on any page.
      const scrollWidth = await p.page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(scrollWidth <= viewport.width, `${where}: the page is ${scrollWidth}px wide on a ${viewport.width}px screen`);
      const controls = await controlsOf(p.page);
      assert.ok(controls.length >= 3, `${where}: only ${controls.length} controls found`);
      for (const { l, label } of controls) {
        // A trial click: Playwright scrolls it into view and checks what a click needs
        // (visible, stable, enabled, and the element itself receives the click, not
        // something over it), without clicking.
        await l.click({ trial: true, timeout: 3000 }).catch((e) => {
          throw new Error(`${where}: ${label} cannot be clicked: ${String(e.message).split('\n').slice(0, 6).join(' | ')}`);
        });
        const box = await l.boundingBox();
        assert.ok(box && box.x >= -1 && box.x + box.width <= viewport.width + 1, `${where}: ${label} sticks out of the screen: ${JSON.stringify(box)}`);
      }
      await shot(p.page, `controls-${name}-${widthName}`, true);
      assert.deepEqual(p.errors, [], `${where}: page errors`);
      await p.ctx.close();
    }
  }
});

test('the controls no other test clicks: a threefold and a fifty-move claim by their buttons, the lobby\'s Copy, the keyboard help, the brand link home', async () => {
  for (const [widthName, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ]) {
    const where = (what) => `${what} at ${widthName}`;
    // A game without a director: the arbiter rules on the claim itself.
    const g = await createGame(server.base, { rules: 'uscf-2020', time_control: 'G/5;d0', white: 'Ada', black: 'Bao', director: false });
    const p = await openPage(g.urls.white, viewport);
    await p.page.locator('.clock.bottom .time').waitFor();
    // Claim with the intended move typed in the move box, by the button: the position has
    // not stood three times (nor fifty moves passed), and the page says the claim was wrong,
    // with the rule.
    const [button, words] = widthName === 'desktop' ? ['threefold', 'threefold'] : ['fifty', 'fifty'];
    await p.page.fill('#moveinput', 'g1f3');
    await p.page.click(`button[data-claim="${button}"]`);
    const s = await waitState(server.base, g.id, (st) => st.rulings.length > 0, where(`the ${button} claim ruled`));
    const ruling = s.rulings.at(-1);
    assert.equal(ruling.kind, 'claim_rejected', where(JSON.stringify(ruling)));
    const notice = p.page.locator('.notice.bad', { hasText: 'Your claim' });
    await notice.waitFor();
    assert.match(await notice.textContent(), new RegExp(words, 'i'), where('the notice names the claim'));
    await notice.locator('.cite', { hasText: ruling.rule }).waitFor();
    await shot(p.page, `claim-${button}-rejected-${widthName}`, viewport === PHONE);
    // The keyboard help opens on its summary.
    await p.page.click('details.keys summary');
    await p.page.locator('details.keys[open]').waitFor();
    assert.match(await p.page.locator('details.keys').textContent(), /Space/);
    // The brand goes home, to the lobby.
    await p.page.click('header.top a.brand');
    await p.page.waitForURL(`${server.base}/`);
    await p.page.locator('form.create button[type="submit"]').first().waitFor();
    assert.deepEqual(p.errors, [], where('page errors'));
    await p.ctx.close();

    // The lobby: a game created, its links copied with the Copy buttons.
    const l = await openPage('/', viewport);
    await l.ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
    await l.page.locator('button.quick-tc').first().waitFor();
    await l.page.click('form.create:not(.practice) button[type="submit"]');
    await l.page.locator('section.created h2', { hasText: 'is ready' }).waitFor();
    const rows = l.page.locator('section.created .linkrow');
    const n = await rows.count();
    assert.ok(n >= 2, where(`${n} link rows`));
    for (let i = 0; i < n; i++) {
      const row = rows.nth(i);
      const link = await row.locator('input.link').inputValue();
      await row.locator('button.copy').click();
      await row.locator('button.copy', { hasText: 'Copied' }).waitFor();
      assert.equal(await l.page.evaluate(() => navigator.clipboard.readText()), link, where(`row ${i} copied its link`));
    }
    await shot(l.page, `lobby-copied-${widthName}`, true);
    assert.deepEqual(l.errors, [], where('lobby errors'));
    await l.ctx.close();
  }
});
