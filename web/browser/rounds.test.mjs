// Issue 31, items 2, 4 and 11, clicked as a director and players do, at desktop and phone
// width: round 1 looked at while round 3 is paired, a result of it corrected with the
// warning naming round 3 and its boards before it is confirmed, the notice that stays
// until dismissed, a player's phone moved to the new board; the latest round unpaired and
// paired by hand; a player's check-out asked for confirmation on her phone, the console
// naming her once round 2 is paired without her, and her brought back; a refusal taken
// down once it no longer holds; a link shown once saying where to find it again.
// Screenshots at desktop and phone width go to web/screenshots/.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { eventApi, screenshotDir, shot, startBrowser, startServer, DESKTOP, PHONE, openPage as openPageOf } from './harness.mjs';

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

const openPage = (path, viewport = DESKTOP) => openPageOf(browser, server.base, path, viewport);
const api = (method, path, token, body) => eventApi(server.base, method, path, token, body);

/** A page at both widths: the desktop screenshot, then the phone one; back to `width` after. */
async function shots(page, name, width = DESKTOP) {
  await page.setViewportSize(DESKTOP);
  await shot(page, `${name}-desktop`, true);
  await page.setViewportSize(PHONE);
  await shot(page, `${name}-phone`, true);
  await page.setViewportSize(width);
}

/** A part of a page as it is now (its element alone: a phone's full page is too tall to read). */
async function part(locator, name) {
  mkdirSync(screenshotDir, { recursive: true });
  // A live change may draw the element again as it is taken: taken again then.
  for (let i = 0; ; i++) {
    try {
      await locator.screenshot({ path: join(screenshotDir, `${name}.png`) });
      return;
    } catch (e) {
      if (i === 2) throw e;
    }
  }
}

/** The page's errors, less the browser's own line for each refused request (the page shows those). */
const pageErrors = (errors) => errors.filter((e) => !/Failed to load resource: the server responded with a status of (400|404|409)/.test(e));

const NAMES = ['Ann', 'Bob', 'Cy', 'Di', 'Eve', 'Fay', 'Gus', 'Hal'];

/** A Swiss on boards, `names` checked in, rounds before `paired` played (results by API, as phones would report them), round `paired` paired. */
async function evening(names, paired) {
  const ev = await api('POST', '/api/events', null, { name: 'Club Swiss', format: 'swiss', rounds: 5, time_control: 'G/5;d0', rules: 'fide-b3', play: 'board' });
  const added = await api('POST', `/api/events/${ev.id}/players?check_in=true`, ev.director_token, { players: names.map((name, i) => ({ name, rating: 2000 - 40 * i })) });
  const player = Object.fromEntries(added.players.map((p) => [p.name, p]));
  for (let r = 1; r <= paired; r++) {
    const round = await api('POST', `/api/events/${ev.id}/rounds`, ev.director_token);
    if (r === paired) break;
    for (const [i, b] of round.boards.entries()) await api('POST', `/api/events/${ev.id}/rounds/${r}/boards/${b.board}/result`, ev.director_token, { result: ['1-0', '0-1', '1/2', '1-0'][(i + r) % 4] });
  }
  return { ...ev, player };
}

/** A correction of round 1 that pairs round 3 again, found by the server's dry run (which changes nothing). */
async function repairing(ev) {
  for (const board of [1, 2, 3, 4]) {
    for (const result of ['0-1', '1-0', '1/2']) {
      const p = await api('POST', `/api/events/${ev.id}/rounds/1/boards/${board}/result?dry_run=1`, ev.director_token, { result });
      if (p.repaired.length) return { board, result, preview: p };
    }
  }
  throw new Error('no correction of round 1 pairs round 3 again');
}

/** "boards 2–4" as the console writes it. */
function boardList(boards) {
  const s = [...boards].sort((a, b) => a - b);
  const runs = [];
  for (let i = 0; i < s.length; ) {
    let j = i;
    while (j + 1 < s.length && s[j + 1] === s[j] + 1) j++;
    if (j - i >= 2) runs.push(`${s[i]}–${s[j]}`);
    else for (let k = i; k <= j; k++) runs.push(String(s[k]));
    i = j + 1;
  }
  const text = runs.length === 1 ? runs[0] : `${runs.slice(0, -1).join(', ')} and ${runs[runs.length - 1]}`;
  return `${s.length === 1 ? 'board' : 'boards'} ${text}`;
}

for (const [width, label] of [
  [DESKTOP, 'desktop'],
  [PHONE, 'phone'],
]) {
  test(`(${label}) round 1 corrected while round 3 is paired: the warning names round 3 and its boards, the notice stays, a phone moves; the latest round unpaired and paired by hand`, async () => {
    const ev = await evening(NAMES, 3);
    const round3 = await api('GET', `/api/events/${ev.id}/rounds/3`);
    const { board, result, preview } = await repairing(ev);
    const rep = preview.repaired[0];
    assert.equal(rep.round, 3);
    // A player whose board the correction changes, and what her phone will say.
    const moved = rep.after.boards.find((b) => rep.boards.includes(b.board));
    const was = round3.boards.find((b) => [b.white.name, b.black.name].includes(moved.white.name));
    const phone = await openPage(new URL(ev.player[moved.white.name].link, server.base).pathname + new URL(ev.player[moved.white.name].link, server.base).search, PHONE);
    await phone.page.locator('.boardno .number', { hasText: String(was.board) }).waitFor();

    // The hall's projector, held on the pairings.
    const projector = await openPage(`/events/${ev.id}/projector`, DESKTOP);
    await projector.page.getByRole('button', { name: 'Pairings' }).click();
    await projector.page.locator('table.pj-pairings').waitFor();
    const director = await openPage(ev.urls.director, width);
    const cons = director.page;
    // The desktop run takes each page at both widths; the phone run the part it is about, as the phone shows it.
    const look = (name, what) => (label === 'desktop' ? shots(cons, `rounds-console-${name}`, width) : part(cons.locator(what), `rounds-console-${name}-phone-part`));
    await cons.locator('h2#round-title', { hasText: 'Round 3' }).waitFor();
    // Every round is there to look at: round 1 while round 3 is paired.
    await cons.locator('nav.round-picker button[data-round="3"][aria-pressed="true"]').waitFor();
    await cons.click('nav.round-picker button[data-round="1"]');
    await cons.locator('section.round.past h2#round-title', { hasText: 'Round 1 (complete)' }).waitFor();
    const round1 = await api('GET', `/api/events/${ev.id}/rounds/1`);
    for (const b of round1.boards) {
      const row = cons.locator(`section.round.past tr[data-board="${b.board}"]`);
      assert.match(await row.textContent(), new RegExp(`${b.white.name} \\(${b.white.number}\\).*${b.black.name} \\(${b.black.number}\\)`));
    }
    await look('round1', 'section.round.past');

    // The correction: the warning before it is confirmed names round 3 and the boards.
    await cons.selectOption(`#past-1-${board}-0`, result);
    await cons.click(`section.round.past tr[data-board="${board}"] button.correct`);
    const confirm = cons.locator('.confirm-correction');
    await confirm.waitFor();
    const warning = await confirm.textContent();
    assert.ok(warning.includes(`Round 3 will be paired again: ${boardList(rep.boards)} change`), warning);
    assert.match(warning, /printed again/);
    // The new pairing is shown, the changed boards marked.
    assert.equal(await confirm.locator('table.new-pairing tr.changed').count(), rep.boards.length);
    // Nothing changed yet.
    assert.deepEqual(await api('GET', `/api/events/${ev.id}/rounds/3`), round3);
    await look('correction-warning', '.confirm-correction');
    await confirm.locator('button.confirm').click();

    // After it: the notice that stays, naming round 3, the boards and the slips to print again.
    const notice = cons.locator('section.repair-notice');
    await notice.waitFor();
    const said = await notice.textContent();
    assert.ok(said.includes(`Round 3 was paired again after the correction of round 1, board ${board}`), said);
    assert.ok(said.includes(`${boardList(rep.boards)} changed`), said);
    assert.match(said, /Print round 3's pairings and slips again/);
    assert.equal(await notice.locator('a.print').first().getAttribute('href'), `/events/${ev.id}/print/pairings?round=3`);
    const now = await api('GET', `/api/events/${ev.id}/rounds/3`);
    assert.deepEqual(now.boards.map((b) => [b.white.number, b.black.number]), rep.after.boards.map((b) => [b.white.number, b.black.number]));
    // The corrected result is in round 1's table.
    await cons.locator(`section.round.past tr[data-board="${board}"] td.result`, { hasText: { '1-0': '1–0', '0-1': '0–1', '1/2': '½–½' }[result] }).waitFor();
    // The player's phone moved to her new board without a reload.
    await phone.page.locator('.boardno .number', { hasText: String(moved.board) }).waitFor();
    await phone.page.locator('.pairing', { hasText: `against ${moved.black.name}` }).waitFor();
    // The projector shows round 3 as it is paired now, without a reload.
    for (const b of rep.after.boards) {
      await projector.page.locator('table.pj-pairings tbody tr', { has: projector.page.locator('td.white', { hasText: b.white.name }) }).filter({ has: projector.page.locator('td.black', { hasText: b.black.name }) }).waitFor();
    }
    // And says so, in case she already sat at her old board.
    await phone.page.locator('.messages .notice', { hasText: `Round 3 was paired again: your board changed. You are now on board ${moved.board}, White against ${moved.black.name}` }).waitFor();
    if (label === 'desktop') await shots(phone.page, 'rounds-player-moved', PHONE);
    // The notice stays across a reload, until dismissed.
    await cons.reload();
    await notice.waitFor();
    await cons.locator('h2#round-title', { hasText: 'Round 3' }).waitFor();
    await look('repair-notice', 'section.repair-notice');
    await notice.locator('button.dismiss').click();
    await notice.waitFor({ state: 'detached' });
    await cons.reload();
    await cons.locator('h2#round-title', { hasText: 'Round 3' }).waitFor();
    assert.equal(await notice.count(), 0);

    // Unpair the latest round, with its confirmation.
    await cons.click('button.unpair');
    const unpair = cons.locator('.confirm-unpair');
    await unpair.waitFor();
    assert.match(await unpair.textContent(), /Delete round 3's pairing\? Nothing in it is played/);
    await look('unpair', 'section.round-tools');
    await unpair.locator('button.confirm-unpair-now').click();
    await cons.locator('.messages .notice', { hasText: "Round 3's pairing is deleted" }).waitFor();
    await cons.locator('h2#round-title', { hasText: 'Round 2 (complete)' }).waitFor();
    assert.equal((await api('GET', `/api/events/${ev.id}`)).rounds_paired, 2);
    await phone.page.locator('h2', { hasText: 'Round 2' }).waitFor();
    await cons.click('button.start-round');
    await cons.locator('h2#round-title', { hasText: 'Round 3' }).waitFor();
    // The notice that round 3 is deleted no longer holds: it goes.
    await cons.locator('.messages .notice', { hasText: "Round 3's pairing is deleted" }).waitFor({ state: 'detached' });

    // A pairing by hand: boards 1 and 2 exchange their Black players.
    const paired = await api('GET', `/api/events/${ev.id}/rounds/3`);
    const [b1, b2] = paired.boards;
    await cons.click('button.pair-by-hand');
    const manual = cons.locator('.manual');
    await manual.waitFor();
    await manual.locator('select[aria-label="board 1 Black"]').selectOption(String(b2.black.number));
    // A player on two boards is named, and the pairing cannot be used yet.
    await manual.locator('p.error', { hasText: `On two boards: ${b2.black.name}` }).waitFor();
    assert.equal(await manual.locator('button.save-manual').isDisabled(), true);
    await manual.locator('select[aria-label="board 2 Black"]').selectOption(String(b1.black.number));
    await manual.locator('p.error').waitFor({ state: 'detached' });
    await look('manual', 'section.round-tools');
    await manual.locator('button.save-manual').click();
    await manual.locator('.confirm-manual', { hasText: "Replace round 3's pairing with this one" }).waitFor();
    await manual.locator('button.confirm-manual-save').click();
    await cons.locator('.messages .notice', { hasText: 'Round 3 is paired as you set it' }).waitFor();
    await cons.locator('section.round p.muted', { hasText: 'Paired by hand by director' }).waitFor();
    const byHand = await api('GET', `/api/events/${ev.id}/rounds/3`);
    assert.deepEqual(byHand.boards.slice(0, 2).map((b) => [b.white.number, b.black.number]), [
      [b1.white.number, b2.black.number],
      [b2.white.number, b1.black.number],
    ]);
    assert.deepEqual(byHand.boards.slice(2).map((b) => [b.white.number, b.black.number]), paired.boards.slice(2).map((b) => [b.white.number, b.black.number]));
    await cons.locator(`table.pairings tr[data-board="1"]`, { hasText: b2.black.name }).waitFor();
    await look('manual-done', 'section.round');

    assert.deepEqual(pageErrors(director.errors), []);
    assert.deepEqual(phone.errors, []);
    assert.deepEqual(projector.errors, []);
    for (const p of [director, phone, projector]) await p.ctx.close();
  });
}

test('a check-out asks first on the phone; the console names who played round 1 and is not paired in round 2, and brings her back; a refusal goes once it no longer holds; a link shown once says where it is again', async () => {
  const ev = await evening(NAMES.slice(0, 6), 1);
  const di = ev.player.Di;
  const phone = await openPage(new URL(di.link, server.base).pathname + new URL(di.link, server.base).search, PHONE);
  const director = await openPage(ev.urls.director, DESKTOP);
  const cons = director.page;
  await cons.locator('h2#round-title', { hasText: 'Round 1' }).waitFor();

  // Round 1 is not complete: starting round 2 is refused, and the refusal goes by itself
  // once the results are in (the phones report them).
  await cons.click('button.start-round');
  const refusal = cons.locator('.messages .error');
  await refusal.waitFor();
  assert.match(await refusal.textContent(), /round 1/i);
  const round1 = await api('GET', `/api/events/${ev.id}/rounds/1`);
  for (const b of round1.boards) {
    await api('POST', `/api/events/${ev.id}/rounds/1/boards/${b.board}/result`, ev.player[b.white.name].token, { result: '1/2' });
  }
  await cons.locator('h2#round-title', { hasText: 'Round 1 (complete)' }).waitFor();
  await refusal.waitFor({ state: 'detached' });

  // Di taps Check out: her phone asks first, saying what it costs.
  await phone.page.locator('.checkin.done').waitFor();
  await phone.page.click('button.check-out');
  const ask = phone.page.locator('.confirm-out');
  await ask.waitFor();
  assert.match(await ask.textContent(), /Check out\? You will not be paired in round 2 or after, until you check in again\./);
  await shots(phone.page, 'rounds-player-checkout-confirm', PHONE);
  // "No" keeps her in; nothing was sent.
  await ask.locator('button.keep-in').click();
  await ask.waitFor({ state: 'detached' });
  assert.equal((await api('GET', `/api/events/${ev.id}/me`, di.token)).checked_in, true);
  await phone.page.click('button.check-out');
  await ask.locator('button.confirm-check-out').click();
  await phone.page.locator('.notice', { hasText: 'You are checked out: you will not be paired from round 2' }).waitFor();
  await phone.page.locator('button.check-in').waitFor();
  await shots(phone.page, 'rounds-player-checked-out', PHONE);
  await cons.locator(`tr[data-player="${di.number}"] .status`, { hasText: 'not checked in' }).waitFor();

  // Round 2 is paired without her: the console names her, and why.
  await cons.click('button.start-round');
  await cons.locator('h2#round-title', { hasText: 'Round 2' }).waitFor();
  const left = cons.locator('.left-out');
  await left.waitFor();
  assert.match(await left.textContent(), new RegExp(`Played round 1, not paired in round 2.*Di \\(${di.number}\\): checked out`));
  await phone.page.locator('.myround', { hasText: 'Round 2' }).waitFor();
  await shots(cons, 'rounds-console-left-out');
  await cons.setViewportSize(PHONE);
  await part(left, 'rounds-console-left-out-phone-part');
  await cons.setViewportSize(DESKTOP);
  // Brought back: checked in, round 2 paired again with her, after a confirmation.
  await left.locator('button.bring-back').click();
  await left.locator('.confirm-bring', { hasText: 'Bring back Di' }).waitFor();
  await shots(cons, 'rounds-console-bring-back');
  await cons.setViewportSize(PHONE);
  await part(left, 'rounds-console-bring-back-phone-part');
  await cons.setViewportSize(DESKTOP);
  await left.locator('button.confirm-bring-back').click();
  await cons.locator('.messages .notice', { hasText: 'Di is back, and round 2 is paired again' }).waitFor();
  await left.waitFor({ state: 'detached' });
  const round2 = await api('GET', `/api/events/${ev.id}/rounds/2`);
  assert.ok(round2.boards.some((b) => b.white.name === 'Di' || b.black.name === 'Di'), JSON.stringify(round2));
  await phone.page.locator('.boardno .number').waitFor();
  await phone.page.locator('.checkin.done').waitFor();
  // Her page says she is paired now; its "checked out" notice no longer holds and is gone.
  await phone.page.locator('.messages .notice', { hasText: 'Round 2 was paired again: you are paired now, on board' }).waitFor();
  assert.equal(await phone.page.locator('.messages .notice', { hasText: 'You are checked out' }).count(), 0);
  await shots(phone.page, 'rounds-player-back', PHONE);

  // A link shown once says where to find it again.
  await cons.fill('#newname', 'Ivy');
  await cons.click('form.add-player button[type="submit"]');
  const added = cons.locator('.messages .notice', { hasText: 'Ivy is entered and checked in' });
  await added.waitFor();
  assert.match(await added.textContent(), /their QR card shows it again at any time/);
  assert.equal(await added.locator('a.print-qr').getAttribute('href'), `/events/${ev.id}/print/qr?token=${ev.director_token}`);
  await cons.click('button.deputy');
  const deputy = cons.locator('.messages .notice', { hasText: "A deputy's console link" });
  await deputy.waitFor();
  assert.match(await deputy.textContent(), /shown only here, once: .* if it is lost, make another deputy's link/);
  await shots(cons, 'rounds-console-link-shown-once');
  await cons.setViewportSize(PHONE);
  await part(cons.locator('.messages'), 'rounds-console-link-shown-once-phone-part');

  assert.deepEqual(pageErrors(director.errors), []);
  assert.deepEqual(phone.errors, []);
  await director.ctx.close();
  await phone.ctx.close();
});
