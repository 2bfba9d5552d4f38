// The director's rounds panel in words (roundsmodel.ts) and the refusals that go once
// they no longer hold (notices.ts).
import { describe, expect, it } from 'vitest';
import { initialConsole, initialPlayer, reduceConsole, reducePlayer } from '../src/event/model';
import { refusalAbout, refusalLifted } from '../src/event/notices';
import { boardList, leftWhy, previewSentences, repairNoticeText } from '../src/event/roundsmodel';
import type { ResultPreview, RoundView } from '../src/wire';

const round = (n: number): RoundView => ({ round: n, boards: [], complete: false });

describe('boards in words', () => {
  it('writes runs as ranges and lists the rest', () => {
    expect(boardList([3])).toBe('board 3');
    expect(boardList([1, 3])).toBe('boards 1 and 3');
    expect(boardList([4, 2, 3])).toBe('boards 2–4');
    expect(boardList([1, 2])).toBe('boards 1 and 2');
    expect(boardList([1, 3, 4, 5, 7])).toBe('boards 1, 3–5 and 7');
    expect(boardList([])).toBe('no board');
  });

  it('says what a previewed correction does before it is confirmed', () => {
    const p: ResultPreview = { effects: [], repaired: [{ round: 3, boards: [2, 3, 4], byes: false, before: round(3), after: round(3) }], kept: [], seq: 9 };
    expect(previewSentences(p)[0]).toMatch(/^Round 3 will be paired again: boards 2–4 change\. Its printed pairings and slips must be printed again/);
    expect(previewSentences({ ...p, repaired: [], kept: [{ round: 3, reason: 'round 3 has begun' }] })).toEqual(['Round 3 keeps its pairing: round 3 has begun.']);
    expect(previewSentences({ ...p, repaired: [] })).toEqual(['No other round changes: only this result and the standings.']);
    expect(repairNoticeText({ round: 3, boards: [2], byes: true, cause: 'round 1, board 2 (1–0)' })).toMatch(/^Round 3 was paired again after the correction of round 1, board 2 \(1–0\): board 2 changed, and the byes changed\. Print round 3's pairings and slips again/);
  });

  it('says why a player is out', () => {
    expect(leftWhy({ name: 'Di', number: 4, why: 'not_checked_in' })).toBe('checked out');
    expect(leftWhy({ name: 'Di', number: 4, why: 'available' })).toBe('back, not yet paired');
  });
});

describe('refusals that stay true', () => {
  it('knows what a refusal is about from its route', () => {
    expect(refusalAbout('/rounds', 'POST')).toBe('pair');
    expect(refusalAbout('/rounds/2/boards/3/result?dry_run=1', 'POST')).toBe('board:2:3');
    expect(refusalAbout('/rounds/3', 'DELETE')).toBe('round:3');
    expect(refusalAbout('/players/7/check-in', 'POST')).toBe('player:7');
    expect(refusalAbout('/deputy', 'POST')).toBe('any');
  });

  it('lifts a refusal when a change touches what it was about, and only then', () => {
    expect(refusalLifted('pair', [{ effect: 'results-changed', round: 1, board: 2 }])).toBe(true);
    expect(refusalLifted('pair', [{ effect: 'game-changed', round: 1, board: 2 }])).toBe(false);
    expect(refusalLifted('board:1:2', [{ effect: 'results-changed', round: 1, board: 3 }])).toBe(false);
    expect(refusalLifted('board:1:2', [{ effect: 'results-changed', round: 1, board: 2 }])).toBe(true);
    expect(refusalLifted('player:4', [{ effect: 'player-changed', player: 5 }])).toBe(false);
    expect(refusalLifted('player:4', [{ effect: 'player-changed', player: 4 }])).toBe(true);
  });

  it('takes the console and the player page refusals down on such a change', () => {
    let m = reduceConsole(initialConsole(), { type: 'error', error: 'round 1 is not complete', about: 'pair' });
    m = reduceConsole(m, { type: 'live', msg: { type: 'change', seq: 2, rows: [], effects: [{ effect: 'game-changed', round: 1 }] } });
    expect(m.error).toBe('round 1 is not complete');
    m = reduceConsole(m, { type: 'live', msg: { type: 'change', seq: 3, rows: [], effects: [{ effect: 'round-complete', round: 1 }] } });
    expect(m.error).toBeNull();
    // A failure that is about nothing the evening changes (reading the event) stays.
    m = reduceConsole(m, { type: 'error', error: 'Could not read the event' });
    m = reduceConsole(m, { type: 'live', msg: { type: 'change', seq: 4, rows: [], effects: [{ effect: 'round-paired', round: 2 }] } });
    expect(m.error).toBe('Could not read the event');
    // A notice that holds until a later change of a kind: taken down by it, not by its own change.
    m = reduceConsole(m, { type: 'notice', notice: { text: 'round 2 is deleted', until: ['round-paired'], after: 7 } });
    m = reduceConsole(m, { type: 'live', msg: { type: 'change', seq: 7, rows: [], effects: [{ effect: 'round-paired', round: 2 }] } });
    expect(m.notice?.text).toBe('round 2 is deleted');
    m = reduceConsole(m, { type: 'live', msg: { type: 'change', seq: 8, rows: [], effects: [{ effect: 'player-changed', player: 1 }] } });
    expect(m.notice?.text).toBe('round 2 is deleted');
    m = reduceConsole(m, { type: 'live', msg: { type: 'change', seq: 9, rows: [], effects: [{ effect: 'round-paired', round: 2 }] } });
    expect(m.notice).toBeNull();
    // A player's notice goes once it no longer holds of her view.
    const me = { name: 'Di', in_event: true, checked_in: false };
    let q = reducePlayer(initialPlayer(), { type: 'notice', notice: 'You are checked out', holds: (x) => x.checked_in === false });
    q = reducePlayer(q, { type: 'me', me });
    expect(q.notice).toBe('You are checked out');
    q = reducePlayer(q, { type: 'me', me: { ...me, checked_in: true } });
    expect(q.notice).toBeNull();
    let p = reducePlayer(initialPlayer(), { type: 'error', error: 'already in', about: 'board:1:1' });
    p = reducePlayer(p, { type: 'lift', effects: [{ effect: 'results-changed', round: 1, board: 1 }] });
    expect(p.error).toBeNull();
  });
});
