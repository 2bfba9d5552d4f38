// The evening's pages: their routes, their reducers and what they say in words.
import { describe, expect, it } from 'vitest';
import type { Dispute, EveningSummary, RoundView } from '../src/wire';
import { disputeText, resultText } from '../src/event/common';
import { initialConsole, initialPlayer, myBoard, reduceConsole, reducePlayer } from '../src/event/model';
import { route } from '../src/router';
import { gameState } from './fixtures';

const event = (over: Partial<EveningSummary> = {}): EveningSummary => ({
  id: 'e1', name: 'Friday', format: 'round-robin', rounds: 1, rounds_paired: 0, rounds_complete: 0, time_control: 'G/5;d0', rules: 'uscf-2020',
  play: 'server', mode: 'otb', confirm: 'one', auto: false, check_in: true, tiebreaks: 'BH', players: [], forbidden: [], report: {}, disagreements: [], disputes: [], seq: 0, ...over,
});

const call: Dispute = { game: 'g1', round: 1, board: 2, game_number: 1, white: 'Ann', black: 'Bo', since: 0, what: { kind: 'call', by: 'black', reason: 'noise' } };

const round: RoundView = {
  round: 1,
  complete: false,
  boards: [{ board: 2, white: { name: 'Ann', number: 1 }, black: { name: 'Bo', number: 2 }, results: [null], game: 'g1' }],
};

describe('evening routes', () => {
  it('maps the director and player links the server answers', () => {
    expect(route('/events/e1/direct', '?token=t')).toEqual({ page: 'event-direct', id: 'e1', token: 't' });
    expect(route('/events/e1/player', '?token=p')).toEqual({ page: 'event-player', id: 'e1', token: 'p' });
    expect(route('/events/e1/other', '')).toEqual({ page: 'notfound', path: '/events/e1/other' });
  });
});

describe('the console reducer', () => {
  it('takes the live state, then a dispute, then its end, keeping a record only while disputed', () => {
    let m = reduceConsole(initialConsole(), { type: 'live', msg: { type: 'state', event: event(), round, standings: null } });
    expect(m.round?.boards[0].game).toBe('g1');
    m = reduceConsole(m, { type: 'live', msg: { type: 'dispute', game: 'g1', dispute: call, disputes: [call] } });
    expect(m.disputes).toEqual([call]);
    const record = gameState({ moves: [{ uci: 'e2e4', san: 'e4', by: 'white', at: 10, fen: 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1' }], clock: { white_ms: 1, black_ms: 2, running: null } });
    m = reduceConsole(m, { type: 'record', game: 'g1', record });
    expect(m.records.g1).toEqual(record);
    // A record of a game that waits for no one is not kept.
    expect(reduceConsole(m, { type: 'record', game: 'g9', record }).records.g9).toBeUndefined();
    m = reduceConsole(m, { type: 'live', msg: { type: 'dispute', game: 'g1', dispute: null, disputes: [] } });
    expect(m.disputes).toEqual([]);
    expect(m.records).toEqual({});
  });

  it('applies a change: the round and players it carries, the rest kept', () => {
    let m = reduceConsole(initialConsole(), { type: 'live', msg: { type: 'state', event: event(), round: null, standings: null } });
    const players = [{ name: 'Ann', number: 1, rating: null, federation: null, fide_id: null, uscf_id: null, checked_in: true, paused: false, joined_round: 1, withdrawn_from: null, byes: {} }];
    m = reduceConsole(m, { type: 'live', msg: { type: 'change', seq: 3, rows: [], effects: [], players, round: { ...round, boards: [{ ...round.boards[0], results: ['1-0'] }] } } });
    expect(m.event?.players).toEqual(players);
    expect(m.round?.boards[0].results).toEqual(['1-0']);
    expect(m.event?.name).toBe('Friday');
  });

  it('an error replaces the notice and ends the wait', () => {
    let m = reduceConsole(initialConsole(), { type: 'busy', on: true });
    m = reduceConsole(m, { type: 'notice', notice: { text: 'done' } });
    m = reduceConsole(m, { type: 'error', error: 'the result of board 1 is missing' });
    expect(m).toMatchObject({ error: 'the result of board 1 is missing', notice: null, busy: false });
  });
});

describe('the player reducer', () => {
  it('finds the player board in the round and starts a fresh report per board', () => {
    let m = reducePlayer(initialPlayer(), { type: 'me', me: { name: 'Ann', number: 1, in_event: true, checked_in: true, paused: false, withdrawn_from: null, round: 1, points: '0', board: 2, colour: 'white', results: [null] } });
    expect(m.report).toEqual(['']);
    m = reducePlayer(m, { type: 'round', round });
    expect(myBoard(m)?.board).toBe(2);
    m = reducePlayer(m, { type: 'report', game: 0, result: '1-0' });
    expect(m.report).toEqual(['1-0']);
    // The same board read again keeps the choice; the next round starts afresh.
    m = reducePlayer(m, { type: 'me', me: { ...m.me!, points: '0' } });
    expect(m.report).toEqual(['1-0']);
    m = reducePlayer(m, { type: 'me', me: { ...m.me!, round: 2, board: 1 } });
    expect(m.report).toEqual(['']);
    expect(myBoard(m)).toBeNull();
  });
});

describe('words', () => {
  it('reads results in both the short and the log form', () => {
    expect(['1-0', 'white-wins', '1/2', 'draw', '0-1', '+-', '--', null, 'pending'].map(resultText)).toEqual(['1–0', '1–0', '½–½', '½–½', '0–1', '1–0 forfeit', 'double forfeit', '…', '…']);
  });
  it('says who waits for the director and why', () => {
    expect(disputeText(call)).toBe('Bo (black) calls the director: “noise”');
    const claim: Dispute = { ...call, what: { kind: 'claim', claimant: 'white', claim: 'draw_position', advice: { grant: false, reasons: ['Black can still win'] } } };
    expect(disputeText(claim)).toBe('Ann (white) claims draw position; the assistant advises denying it (Black can still win)');
  });
});
