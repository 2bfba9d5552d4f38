import { describe, expect, it } from 'vitest';
import { pgnSans, withSan } from '../src/event/pgnsan';
import { crossCellText, defaultPaper, pageName, roundWanted, tiebreakName, tiebreaksNamed } from '../src/event/printmodel';
import {
  PAIRINGS_FIRST_MS,
  PAIRINGS_MS,
  STANDINGS_MS,
  PAGE_MS,
  initialProjector,
  pageAt,
  paginate,
  points,
  reduceProjector,
  resultText,
  byeText,
  resultsIn,
  scoreText,
  screenOf,
  tiebreakDecimals,
  tiebreakPlaces,
  tiebreakText,
  withdrawnIn,
  type ProjectorModel,
} from '../src/event/projmodel';
import type { EveningPlayer, EveningSummary, LiveMessage, RoundView, Standings } from '../src/wire';

const player = (number: number, name: string, rating: number, checked_in: boolean): EveningPlayer => ({
  number,
  name,
  rating,
  federation: null,
  fide_id: null,
  uscf_id: null,
  checked_in,
  paused: false,
  joined_round: 1,
  withdrawn_from: null,
  byes: {},
});

const summary: EveningSummary = {
  id: 'e1',
  name: 'Friday blitz',
  format: 'double-swiss',
  rounds: 5,
  rounds_paired: 0,
  rounds_complete: 0,
  time_control: 'G/3;d2',
  rules: 'uscf-2020',
  play: 'board',
  mode: 'otb',
  confirm: 'both',
  auto: false,
  check_in: true,
  tiebreaks: 'BH',
  players: [player(1, 'Ada', 2000, true), player(2, 'Bo', 1900, false)],
  forbidden: [],
  report: {},
  seq: 3,
};

const round = (r: number, results: (string | null)[][]): RoundView => ({
  round: r,
  boards: results.map((res, i) => ({ board: i + 1, white: { name: 'Ada', number: 1 }, black: { name: 'Bo', number: 2 }, results: res })),
  complete: results.every((res) => res.every((x) => x !== null)),
});

const standings = (after: number): Standings => ({ after_round: after, tiebreaks: ['BH'], rows: [{ rank: 1, name: 'Ada', number: 1, points: 1.5, tiebreaks: { BH: 0.5 } }] });

const state = (r: RoundView | null, st: Standings | null): LiveMessage => ({ type: 'state', event: summary, round: r, standings: st });

function apply(m: ProjectorModel, msg: LiveMessage, now: number): ProjectorModel {
  return reduceProjector(m, { type: 'live', msg, now });
}

describe('reduceProjector', () => {
  it('takes the state, then each change: a new round, results, check-ins, standings', () => {
    let m = apply(initialProjector(), state(null, standings(0)), 1000);
    expect(screenOf(m, 1000)).toBe('players');
    m = apply(m, { type: 'change', seq: 4, rows: [], effects: [{ effect: 'player-changed' }], players: summary.players.map((p) => ({ ...p, checked_in: true })) }, 1500);
    expect(m.event?.players.every((p) => p.checked_in)).toBe(true);
    m = apply(m, { type: 'change', seq: 5, rows: [], effects: [{ effect: 'round-paired', round: 1 }], round: round(1, [[null, null]]) }, 2000);
    expect(m.roundSince).toBe(2000);
    expect(m.event?.rounds_paired).toBe(1);
    expect(screenOf(m, 2000)).toBe('pairings');
    m = apply(m, { type: 'change', seq: 6, rows: [], effects: [{ effect: 'results-changed', round: 1 }], round: round(1, [['1-0', null]]) }, 3000);
    expect(m.roundSince).toBe(2000); // the same round: the alternation keeps counting
    expect(screenOf(m, 3000)).toBe('pairings');
    m = apply(m, { type: 'change', seq: 7, rows: [], effects: [{ effect: 'round-complete', round: 1 }, { effect: 'standings-changed' }], round: round(1, [['1-0', '1/2']]), standings: standings(1) }, 4000);
    expect(screenOf(m, 4000)).toBe('standings');
    expect(m.event?.rounds_complete).toBe(1);
    expect(m.event?.seq).toBe(7);
  });

  it('drops the only round when it is deleted, and ignores a change before the first state', () => {
    expect(apply(initialProjector(), { type: 'change', seq: 1, rows: [], effects: [] }, 0)).toEqual(initialProjector());
    let m = apply(initialProjector(), state(round(1, [[null]]), null), 0);
    m = apply(m, { type: 'change', seq: 9, rows: [], effects: [{ effect: 'round-deleted', round: 1 }] }, 10);
    expect(m.round).toBeNull();
    expect(screenOf(m, 10)).toBe('players');
  });
});

describe('screenOf', () => {
  it('alternates the pairings of a round in play with the standings before it', () => {
    const m = apply(initialProjector(), state(round(2, [[null, null]]), standings(1)), 0);
    expect(screenOf(m, 0)).toBe('pairings');
    expect(screenOf(m, PAIRINGS_FIRST_MS - 1)).toBe('pairings');
    expect(screenOf(m, PAIRINGS_FIRST_MS + PAIRINGS_MS - 1)).toBe('pairings');
    expect(screenOf(m, PAIRINGS_FIRST_MS + PAIRINGS_MS)).toBe('standings');
    expect(screenOf(m, PAIRINGS_FIRST_MS + PAIRINGS_MS + STANDINGS_MS)).toBe('pairings');
  });

  it('keeps round 1 on its pairings (no standings yet), and obeys a choice by hand', () => {
    let m = apply(initialProjector(), state(round(1, [[null, null]]), standings(0)), 0);
    expect(screenOf(m, 10 * PAIRINGS_FIRST_MS)).toBe('pairings');
    m = reduceProjector(m, { type: 'choose', choice: 'standings' });
    expect(screenOf(m, 0)).toBe('pairings'); // nothing to stand on yet
    m = apply(m, state(round(2, [[null, null]]), standings(1)), 5);
    expect(screenOf(m, 5)).toBe('standings');
    m = reduceProjector(m, { type: 'choose', choice: 'auto' });
    expect(screenOf(m, 5)).toBe('pairings');
  });
});

describe('the words and numbers shown', () => {
  it('writes scores with halves and results with dashes', () => {
    expect([points(0), points(0.5), points(1.5), points(12), points(null), points(2.25)]).toEqual(['0', '½', '1½', '12', '–', '2.25']);
    expect([resultText('1-0'), resultText('1/2'), resultText('0-1'), resultText('+-'), resultText('--'), resultText(null)]).toEqual(['1–0', '½–½', '0–1', '+–', '––', '']);
    expect(resultsIn(round(1, [['1-0', null], [null, null]]))).toEqual({ done: 1, all: 4 });
  });

  it('writes tiebreaks as decimals, the same places down a column; scores from the server\'s text with ½', () => {
    expect([tiebreakDecimals([12, 9, null]), tiebreakDecimals([12.5, 9]), tiebreakDecimals([5.75, 4]), tiebreakDecimals([1823.333333])]).toEqual([0, 1, 2, 2]);
    expect([tiebreakText(49.75, 2), tiebreakText(9, 2), tiebreakText(12.5, 1), tiebreakText(null, 1), tiebreakText(1823.333333, 2)]).toEqual(['49.75', '9.00', '12.5', '–', '1823.33']);
    expect(tiebreakPlaces(['BH', 'SB'], [{ tiebreaks: { BH: 3, SB: 2.25 } }, { tiebreaks: { BH: 2.5, SB: 1 } }])).toEqual({ BH: 1, SB: 2 });
    expect([scoreText('0.5'), scoreText('3.5'), scoreText('0'), scoreText('12'), scoreText(null)]).toEqual(['½', '3½', '0', '12', '–']);
  });

  it('writes a bye in one set of words, a withdrawn player as withdrawn', () => {
    expect(['pab', 'half', 'full', 'zero', 'absent'].map((k) => byeText(k))).toEqual(['bye (unpaired)', 'half-point bye', 'full-point bye', 'zero-point bye', 'absent']);
    expect(byeText('absent', true)).toBe('withdrawn');
    const players = [{ number: 4, withdrawn_from: 2 }, { number: 5, withdrawn_from: null }];
    expect([withdrawnIn(players, 4, 1), withdrawnIn(players, 4, 2), withdrawnIn(players, 4, 3), withdrawnIn(players, 5, 3), withdrawnIn(players, 9, 3)]).toEqual([false, true, true, false, false]);
  });

  it("reads a game's SAN from its PGN for the dispute card", () => {
    const pgn = '[Event "x"]\n[Result "*"]\n\n1. e4 {[%ff at=0 by=white move=e2e4 press] [%clk 0:05:00]} 1... e5\n{[%ff at=35 by=black move=e7e5 press]} 2. Nf3 *\n';
    expect(pgnSans(pgn)).toEqual(['e4', 'e5', 'Nf3']);
    const record = { moves: [{ uci: 'e2e4' }, { uci: 'e7e5', san: 'e5' }, { uci: 'g1f3' }, { uci: 'f8a3' }] };
    expect(withSan(record, ['e4', 'e5', 'Nf3']).moves.map((m: { san?: string | null; uci: string }) => m.san ?? m.uci)).toEqual(['e4', 'e5', 'Nf3', 'f8a3']);
  });

  it('names the tiebreaks in words', () => {
    expect(['BH-C1', 'SB', 'ARO', 'KS/L+2', 'US-SOLKOFF', 'XYZ'].map(tiebreakName)).toEqual(['Buchholz less the lowest', 'Sonneborn-Berger', 'average rating of opponents', 'Koya system (limit +2)', 'Solkoff', 'XYZ']);
    expect(tiebreaksNamed(['BH-C1', 'DE'])).toBe('BH-C1: Buchholz less the lowest; DE: direct encounter');
    expect(tiebreaksNamed([])).toBe('none');
  });

  it('pages a long list and turns the pages in time', () => {
    expect(paginate([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(paginate([], 3)).toEqual([[]]);
    expect([pageAt(3, 0, 0), pageAt(3, 0, PAGE_MS), pageAt(3, 0, 3 * PAGE_MS), pageAt(1, 0, 99 * PAGE_MS)]).toEqual([0, 1, 0, 0]);
  });

  it('writes a crosstable cell as a club does', () => {
    expect(crossCellText({ round: 1, board: 1, opponent: 7, colour: 'white', results: ['Win'] })).toBe('7w1');
    expect(crossCellText({ round: 1, board: 2, opponent: 3, colour: 'black', results: ['Draw', 'Loss'] })).toBe('3b½0');
    expect(crossCellText({ round: 1, board: 2, opponent: 3, colour: 'black', results: ['ForfeitWin', null] })).toBe('3b+·');
    expect(crossCellText({ round: 2, bye: 'half' })).toBe('½H');
    expect(crossCellText(undefined)).toBe('');
  });

  it('picks the round to print, saying when the one asked for is not paired', () => {
    expect(roundWanted('', 3)).toEqual({ round: 3, error: null });
    expect(roundWanted('?round=2', 3)).toEqual({ round: 2, error: null });
    expect(roundWanted('?round=9', 3).error).toBe('There is no round 9 to print: rounds 1 to 3 are paired; showing round 3.');
    expect(roundWanted('?round=x', 0).error).toBe('There is no round x to print: no round is paired yet; showing nothing.');
  });

  it('prints on the paper chosen, a long crosstable in landscape', () => {
    expect(defaultPaper('en-US')).toBe('letter');
    expect(defaultPaper('de-DE')).toBe('a4');
    expect(pageName('a4', 'crosstable', 12)).toBe('pr-page-a4-landscape');
    expect(pageName('letter', 'crosstable', 9)).toBe('pr-page-letter-portrait');
    expect(pageName('a4', 'slips', 30)).toBe('pr-page-a4-portrait');
  });
});
