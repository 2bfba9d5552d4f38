// A blitz evening through its pages on the real server (issue 21): the director's
// console and a player's page. A player checks in by link, the director checks the other
// in and starts the round from the console, the player's page shows the board and plays
// the game; a call of the director in that game shows on the console with the game's
// record; the result reaches the console without a reload. On physical boards, a
// disagreement reported from the players' pages is settled from the console.
// Screenshots at desktop and phone width go to web/screenshots/.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { shot, startBrowser, startServer, waitState, DESKTOP, PHONE, openPage as openPageOf } from './harness.mjs';

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

function openPage(path, viewport = DESKTOP) {
  return openPageOf(browser, server.base, path, viewport);
}

async function api(method, path, token, body) {
  const headers = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const r = await fetch(server.base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${path} answered ${r.status}: ${text}`);
  return JSON.parse(text);
}

async function evening(body, players) {
  const ev = await api('POST', '/api/events', null, body);
  const added = await api('POST', `/api/events/${ev.id}/players`, ev.director_token, { players });
  const link = Object.fromEntries(added.players.map((p) => [p.name, p.link]));
  const token = Object.fromEntries(added.players.map((p) => [p.name, p.token]));
  return { ...ev, link, token };
}

/** A page at both widths: the desktop screenshot, then the phone one. */
async function shots(page, name) {
  await page.setViewportSize(DESKTOP);
  await shot(page, `${name}-desktop`, true);
  await page.setViewportSize(PHONE);
  await shot(page, `${name}-phone`, true);
  await page.setViewportSize(DESKTOP);
}

async function typeMoveAndPress(page, uci) {
  await page.fill('#moveinput', uci);
  await page.press('#moveinput', 'Enter');
  await page.locator('.press.ready').waitFor();
  await page.locator('body').press('Space');
}

test('check in by link, a round started from the console, the game played from the player page, a call of the director shown on the console, the result live', async () => {
  const ev = await evening(
    { name: 'Friday blitz', format: 'round-robin', time_control: 'G/5;d0', rules: 'uscf-2020', play: 'server', mode: 'otb' },
    [
      { name: 'Ann', rating: 2000 },
      { name: 'Bo', rating: 1900 },
    ],
  );
  const director = await openPage(ev.urls.director);
  const ann = await openPage(ev.link.Ann, PHONE);
  const cons = director.page;
  await cons.locator('.livestate.online').waitFor();
  await cons.locator('tr[data-player] .name', { hasText: 'Ann' }).waitFor();

  // Nobody is checked in: the round is refused, and the console says why.
  await cons.click('button.start-round');
  const refusal = await cons.locator('.messages .error').textContent();
  assert.match(refusal, /check/i, refusal);
  assert.equal(await cons.locator('table.pairings').count(), 0);

  // Ann checks in from her link; the console shows it without a reload.
  await ann.page.locator('button.check-in').click();
  await ann.page.locator('.checkin.done').waitFor();
  await cons.locator('tr[data-player] .status', { hasText: 'checked in' }).first().waitFor();
  // The director checks Bo in from the console, then starts round 1.
  await cons.getByRole('button', { name: 'Check in: Bo' }).click();
  await cons.locator('h2#players-title', { hasText: '2 of 2 checked in' }).waitFor();
  await cons.click('button.start-round');
  await cons.locator('table.pairings tr[data-board="1"]').waitFor();
  const round = await api('GET', `/api/events/${ev.id}/rounds/1`);
  const game = round.boards[0].game;
  assert.ok(game, JSON.stringify(round));
  const annWhite = round.boards[0].white.name === 'Ann';

  // Ann's page shows her board, colour and opponent without a reload.
  await ann.page.locator('.boardno .number', { hasText: '1' }).waitFor();
  const pairing = await ann.page.locator('.pairing').textContent();
  assert.match(pairing, new RegExp(`You play ${annWhite ? 'White' : 'Black'} against Bo`), pairing);
  // Games on the server report themselves: no report form.
  assert.equal(await ann.page.locator('section.report').count(), 0);
  await shots(ann.page, 'evening-player-round');
  await shots(cons, 'evening-console-round');

  // Ann follows her link to the game; Bo opens his with his own token.
  await ann.page.click('a.play');
  await ann.page.waitForURL(new RegExp(`/play/${game}\\?token=`));
  await ann.page.locator('.clock.bottom .time').waitFor();
  const bo = await openPage(`/play/${game}?token=${ev.token.Bo}`, PHONE);
  await bo.page.locator('.clock.bottom .time').waitFor();
  const [white, black] = annWhite ? [ann.page, bo.page] : [bo.page, ann.page];
  await typeMoveAndPress(white, 'e2e4');
  await waitState(server.base, game, (s) => s.moves.length === 1, '1. e4');

  // Black calls the director: the evening's console shows it at once, with the record.
  await black.fill('#callreason', 'my opponent is talking');
  await black.click('button.call-director');
  const dispute = cons.locator(`.dispute[data-game="${game}"]`);
  await dispute.waitFor();
  assert.match(await dispute.locator('.what').textContent(), /calls the director: “my opponent is talking”/);
  await dispute.locator('.movelist', { hasText: 'Moves: 1.e4' }).waitFor();
  await dispute.locator('ol.rulings li', { hasText: 'calls the director' }).waitFor();
  await shots(cons, 'evening-console-dispute');

  // The director opens that game's director console from the dispute and resumes the clock.
  const [gamePage] = await Promise.all([director.ctx.waitForEvent('page'), dispute.locator('a.open-game').click()]);
  await gamePage.locator(`.dcard[data-game="${game}"] button.resume`).click();
  await waitState(server.base, game, (s) => !s.called, 'the call answered');
  await dispute.waitFor({ state: 'detached' });

  // Black resigns: the console shows the result without a reload, the player's page the score.
  await black.click('button.resign');
  await black.locator('button.resign.confirm').click();
  await waitState(server.base, game, (s) => s.result === '1-0', 'the resignation');
  await cons.locator('table.pairings tr[data-board="1"] td.result', { hasText: '1–0' }).waitFor();
  await cons.locator('h2#round-title', { hasText: 'complete' }).waitFor();
  await cons.locator('table.standings').waitFor();
  const annPage = await openPage(ev.link.Ann, PHONE);
  // In Ann's own terms, with her colour (issue 31).
  await annPage.page.locator('.myresult', { hasText: `Result: ${annWhite ? 'won (you had White)' : 'lost (you had Black)'}` }).waitFor();
  await annPage.page.locator('.score', { hasText: annWhite ? 'Score: 1' : 'Score: 0' }).waitFor();
  await shots(annPage.page, 'evening-player-result');
  await shots(cons, 'evening-console-result');
  // The one refused round is the browser's one logged 409; nothing else went wrong.
  assert.deepEqual(
    director.errors.filter((e) => !/status of 409/.test(e)),
    [],
  );
  assert.equal(director.errors.length, 1, director.errors.join('\n'));
  for (const p of [ann, bo, annPage]) assert.deepEqual(p.errors, []);
  for (const p of [director, ann, bo, annPage]) await p.ctx.close();
});

test('on physical boards, a disagreement reported from the players pages is settled from the console, with the log', async () => {
  const ev = await evening(
    { name: 'Board night', format: 'round-robin', time_control: 'G/5;d0', rules: 'fide-b3', play: 'board', confirm: 'both' },
    [
      { name: 'Cy', rating: 1800 },
      { name: 'Di', rating: 1700 },
    ],
  );
  for (const n of [1, 2]) await api('POST', `/api/events/${ev.id}/players/${n}/check-in`, ev.director_token);
  const director = await openPage(ev.urls.director);
  const cons = director.page;
  await cons.locator('h2#players-title', { hasText: '2 of 2 checked in' }).waitFor();
  await cons.click('button.start-round');
  await cons.locator('table.pairings tr[data-board="1"]').waitFor();
  const cy = await openPage(ev.link.Cy, PHONE);
  const di = await openPage(ev.link.Di, PHONE);
  await cy.page.locator('.boardno .number', { hasText: '1' }).waitFor();
  // Cy says White won, Di says Black won.
  await cy.page.click('button.pick[data-result="1-0"]');
  await cy.page.click('button.send-report');
  await cy.page.locator('.reported', { hasText: 'You reported:' }).waitFor();
  await shots(cy.page, 'evening-player-report');
  await di.page.click('button.pick[data-result="0-1"]');
  await di.page.click('button.send-report');
  await di.page.locator('.reported', { hasText: 'the director decides' }).waitFor();
  const dis = cons.locator('.disagreement[data-board="1"]');
  await dis.waitFor();
  assert.match(await dis.textContent(), /White reported 1–0, Black reported 0–1/);
  await cons.locator('table.pairings tr[data-board="1"] td.result', { hasText: 'reported: W 1–0, B 0–1' }).waitFor();
  await shots(cons, 'evening-console-disagreement');
  await dis.locator('button.settle[data-result="1-0"]').click();
  await dis.waitFor({ state: 'detached' });
  await cons.locator('table.pairings tr[data-board="1"] td.result', { hasText: '1–0' }).waitFor();
  // A correction, and the log of it.
  await cons.selectOption('#res-1-1-0', '1/2');
  await cons.click('table.pairings tr[data-board="1"] button.enter');
  await cons.locator('table.pairings tr[data-board="1"] td.result', { hasText: '½–½' }).waitFor();
  await cons.click('button.show-log');
  await cons.locator('ol.changes li', { hasText: 'replaced 1–0' }).waitFor();
  await cons.locator('ol.changes li', { hasText: 'set results round 1 board 1 1–0 (replaced no result yet)' }).waitFor();
  await cons.locator('ol.changes li', { hasText: 'check in Cy' }).waitFor();
  await cy.page.locator('.myresult', { hasText: 'Result: draw' }).waitFor();
  await shots(cons, 'evening-console-log');
  for (const p of [director, cy, di]) assert.deepEqual(p.errors, []);
  for (const p of [director, cy, di]) await p.ctx.close();
});

test("the console's player tools and a deputy's link: a player added with their link, paused, a bye asked and cancelled, withdrawn; the deputy checks in and pairs", async () => {
  const ev = await evening(
    { name: 'Tools', format: 'swiss', rounds: 3, time_control: 'G/5;d0', rules: 'fide-b3', play: 'board' },
    [
      { name: 'Eve', rating: 1600 },
      { name: 'Fay', rating: 1500 },
    ],
  );
  const director = await openPage(ev.urls.director);
  const cons = director.page;
  await cons.locator('tr[data-player] .name', { hasText: 'Fay' }).waitFor();
  // An empty name is refused before it is sent.
  await cons.click('form.add-player button[type="submit"]');
  await cons.locator('.messages .error', { hasText: "A new player's name is missing" }).waitFor();
  // A player added from the console is checked in, and their link is shown once.
  await cons.fill('#newname', 'Gus');
  await cons.fill('#newrating', '1400');
  await cons.click('form.add-player button[type="submit"]');
  await cons.locator('.messages .notice', { hasText: 'Gus is entered and checked in' }).waitFor();
  const gusLink = await cons.locator('.messages .notice input.link').inputValue();
  assert.match(gusLink, /\/events\/[0-9a-f]+\/player\?token=[0-9a-f]+$/);
  await cons.locator('tr[data-player] .name', { hasText: 'Gus' }).waitFor();
  // Gus's link is his page.
  const gus = await openPage(new URL(gusLink).pathname + new URL(gusLink).search, PHONE);
  await gus.page.locator('h1.me', { hasText: 'Gus' }).waitFor();
  await gus.page.locator('.checkin.done').waitFor();
  // Pause and resume Eve; a half-point bye for Fay in round 1, cancelled; Gus withdrawn.
  const row = (name) => cons.locator('tr[data-player]', { has: cons.locator('.name', { hasText: name }) });
  await cons.getByRole('button', { name: 'Pause: Eve' }).click();
  await row('Eve').locator('.status', { hasText: 'paused' }).waitFor();
  await cons.getByRole('button', { name: 'Resume: Eve' }).click();
  await row('Eve').locator('.status', { hasText: 'not checked in' }).waitFor();
  await cons.getByRole('combobox', { name: 'Bye round: Fay' }).selectOption('1');
  await cons.getByRole('combobox', { name: 'Bye kind: Fay' }).selectOption('half');
  await cons.getByRole('button', { name: 'Book the bye: Fay' }).click();
  await row('Fay').locator('.status', { hasText: 'half bye in round 1' }).waitFor();
  await cons.getByRole('button', { name: 'Cancel the bye in round 1: Fay' }).click();
  await cons.getByRole('button', { name: 'Book the bye: Fay' }).waitFor();
  await cons.getByRole('button', { name: 'Withdraw: Gus' }).click();
  await row('Gus').locator('.status', { hasText: 'withdrawn' }).waitFor();
  await gus.page.locator('.status', { hasText: 'You are withdrawn' }).waitFor();
  await shots(cons, 'evening-console-players');
  // A deputy's link opens a console that directs: it checks Eve and Fay in and pairs round 1.
  await cons.click('button.deputy');
  await cons.locator('.messages .notice', { hasText: "A deputy's console link" }).waitFor();
  const deputyLink = await cons.locator('.messages .notice input.link').inputValue();
  assert.match(deputyLink, /\/events\/[0-9a-f]+\/direct\?token=[0-9a-f]+$/);
  assert.ok(!deputyLink.endsWith(ev.director_token));
  const deputy = await openPage(new URL(deputyLink).pathname + new URL(deputyLink).search, PHONE);
  await deputy.page.getByRole('button', { name: 'Check in: Eve' }).click();
  await deputy.page.getByRole('button', { name: 'Check in: Fay' }).click();
  await deputy.page.locator('h2#players-title', { hasText: '2 of 3 checked in' }).waitFor();
  await deputy.page.click('button.start-round');
  await deputy.page.locator('table.pairings tr[data-board="1"]').waitFor();
  await cons.locator('table.pairings tr[data-board="1"]').waitFor();
  await deputy.page.click('button.show-log');
  await deputy.page.locator('ol.changes li', { hasText: 'deputy: pair next' }).waitFor();
  await shots(deputy.page, 'evening-console-deputy');
  for (const p of [director, gus, deputy]) assert.deepEqual(p.errors, []);
  for (const p of [director, gus, deputy]) await p.ctx.close();
});
