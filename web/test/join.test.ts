// The evening's venue page (`/events/{id}/join`): its route, its reducer, finding a board by name.
import { describe, expect, it } from 'vitest';
import type { RoundView } from '../src/wire';
import { boardsFor, fold, reduceJoin, type JoinModel } from '../src/event/joinmodel';
import { route } from '../src/router';

const round: RoundView = {
  round: 3,
  complete: false,
  boards: [
    { board: 1, white: { name: 'José Núñez', number: 4 }, black: { name: 'Ann Lee', number: 1 }, results: [null] },
    { board: 2, white: { name: 'Bo Kim', number: 2 }, black: { name: 'Carmen Ruiz', number: 3 }, results: ['1-0'] },
  ],
};

describe('the venue page', () => {
  it('has its route, the join link the evening answers', () => {
    expect(route('/events/e1/join', '')).toEqual({ page: 'event-join', id: 'e1' });
  });

  it('finds a board by part of a name, whatever the accents and the case', () => {
    expect(fold('  Núñez ')).toBe('nunez');
    expect(boardsFor(round, 'nunez').map((b) => b.board)).toEqual([1]);
    expect(boardsFor(round, 'RUIZ').map((b) => b.board)).toEqual([2]);
    expect(boardsFor(round, 'e').map((b) => b.board)).toEqual([1, 2]);
    expect(boardsFor(round, '').map((b) => b.board)).toEqual([1, 2]);
    expect(boardsFor(round, 'zed')).toEqual([]);
    expect(boardsFor(null, 'ann')).toEqual([]);
  });

  it('keeps what it is told, one action at a time', () => {
    let m: JoinModel = { event: null, round: null, search: '', live: 'connecting', error: null };
    m = reduceJoin(m, { type: 'round', round });
    m = reduceJoin(m, { type: 'search', text: 'bo' });
    m = reduceJoin(m, { type: 'status', live: 'online' });
    expect(m.round?.round).toBe(3);
    expect(m.search).toBe('bo');
    expect(m.live).toBe('online');
    m = reduceJoin(m, { type: 'error', error: 'gone' });
    expect(m.error).toBe('gone');
  });
});
