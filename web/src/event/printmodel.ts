// The print views' pure part (web/src/event/print.ts draws them): which round, which
// paper and page, a crosstable cell in a club's notation.
import type { CrossCell } from '../wire';

export const PRINT_KINDS = ['pairings', 'slips', 'standings', 'crosstable', 'qr'] as const;
export type PrintKind = (typeof PRINT_KINDS)[number];

export type Paper = 'a4' | 'letter';

/** The round a print view is of: `?round=R` when it names a paired round, else the latest. */
export function roundWanted(search: string, paired: number): { round: number; error: string | null } {
  const raw = new URLSearchParams(search).get('round');
  if (raw === null) return { round: paired, error: null };
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > paired) {
    return { round: paired, error: `There is no round ${raw} to print: ${paired === 0 ? 'no round is paired yet' : `rounds 1 to ${paired} are paired`}; showing ${paired ? `round ${paired}` : 'nothing'}.` };
  }
  return { round: n, error: null };
}

/** A game's outcome in a crosstable cell, for the player the row is of. */
export function outcomeText(o: string | null): string {
  switch (o) {
    case 'Win':
      return '1';
    case 'Draw':
      return '½';
    case 'Loss':
      return '0';
    case 'ForfeitWin':
      return '+';
    case 'ForfeitLoss':
      return '−';
    case 'DoubleForfeit':
      return '−−';
    default:
      return '·';
  }
}

/** A crosstable cell as a club writes it: opponent, colour, result(s): `7w1`, `3b½0`; byes by kind. */
export function crossCellText(c: CrossCell | undefined): string {
  if (!c) return '';
  if ('bye' in c) {
    const kind: Record<string, string> = { pab: 'bye', full: '+F', half: '½H', zero: '0Z', absent: '–' };
    return kind[c.bye] ?? c.bye;
  }
  return `${c.opponent}${c.colour === 'white' ? 'w' : 'b'}${c.results.map(outcomeText).join('')}`;
}

export function defaultPaper(lang: string): Paper {
  return /^en-(US|CA)$|^es-(MX|US)$|^fr-CA$/i.test(lang) ? 'letter' : 'a4';
}

/**
 * The named `@page` (event.css) the sheet prints on: the paper's size, landscape for a
 * crosstable of more than 9 rounds. Named pages, not a style element: the server's
 * Content-Security-Policy allows no inline style.
 */
export function pageName(paper: Paper, kind: PrintKind, rounds: number): string {
  return `pr-page-${paper}-${kind === 'crosstable' && rounds > 9 ? 'landscape' : 'portrait'}`;
}

const TIEBREAK_NAMES: Record<string, string> = {
  DE: 'direct encounter',
  WIN: 'games won (played and by forfeit)',
  WON: 'games won over the board',
  BPG: 'games played with Black',
  BWG: 'games won with Black',
  PS: 'progressive scores',
  REP: 'rounds elected to play',
  STD: 'standard points',
  TPN: 'pairing number',
  BH: 'Buchholz',
  AOB: "average of opponents' Buchholz",
  FB: 'Fore Buchholz',
  SB: 'Sonneborn-Berger',
  KS: 'Koya system',
  ARO: 'average rating of opponents',
  TPR: 'tournament performance rating',
  PTP: 'perfect tournament performance',
  APRO: "average of opponents' performance ratings",
  APPO: "average of opponents' perfect performances",
  RTNG: 'rating',
  'US-MM': 'modified median',
  'US-SOLKOFF': 'Solkoff',
  'US-CUM': 'cumulative',
  'US-OPPCUM': "opponents' cumulative",
  'US-DE': 'result between tied players',
  'US-BLACKS': 'most games with Black',
  'US-KASHDAN': 'Kashdan',
  'US-SB': 'Sonneborn-Berger',
  'US-MEDIAN': 'median',
};

const MODIFIERS: Record<string, string> = { C1: 'less the lowest', C2: 'less the two lowest', M1: 'less the highest and lowest', M2: 'less the two highest and two lowest' };

/** A tiebreak's id as the standings' heading writes it (`BH-C1`), in words: "Buchholz less the lowest". */
export function tiebreakName(id: string): string {
  if (TIEBREAK_NAMES[id]) return TIEBREAK_NAMES[id];
  const ks = /^KS\/L([+-]\d+)$/.exec(id);
  if (ks) return `Koya system (limit ${ks[1]})`;
  const m = /^([A-Z]+)-(C1|C2|M1|M2)$/.exec(id);
  if (m && TIEBREAK_NAMES[m[1]]) return `${TIEBREAK_NAMES[m[1]]} ${MODIFIERS[m[2]]}`;
  return id;
}

/** The tiebreaks of a standings sheet in words: "BH-C1: Buchholz less the lowest; SB: Sonneborn-Berger". */
export function tiebreaksNamed(ids: string[]): string {
  return ids.length ? ids.map((t) => `${t}: ${tiebreakName(t)}`).join('; ') : 'none';
}
