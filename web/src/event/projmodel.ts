// The projector's model (the evening's JSON is the generated wire types, ../wire.ts),
// its one reducer (`reduceProjector`, pure) and the choice of what the screen shows
// (`screenOf`, pure: docs/web.md "The projector"). No chess here: the server pairs,
// scores and ranks; the page only lays out what it answers.
import type { EveningSummary, LiveMessage, RoundView, Standings } from '../wire';

export type Screen = 'loading' | 'players' | 'pairings' | 'standings';
export type Choice = 'auto' | 'pairings' | 'standings';

export interface ProjectorModel {
  event: EveningSummary | null;
  round: RoundView | null;
  standings: Standings | null;
  /** When (ms, the page's clock) the latest round was first seen paired: the alternation counts from it. */
  roundSince: number;
  /** Chosen by hand (the buttons at the foot), or `auto`. */
  choice: Choice;
  online: boolean;
  error: string | null;
}

export type ProjectorAction =
  | { type: 'live'; msg: LiveMessage; now: number }
  | { type: 'online'; online: boolean }
  | { type: 'error'; error: string }
  | { type: 'choose'; choice: Choice };

export function initialProjector(): ProjectorModel {
  return { event: null, round: null, standings: null, roundSince: 0, choice: 'auto', online: false, error: null };
}

export function reduceProjector(m: ProjectorModel, a: ProjectorAction): ProjectorModel {
  switch (a.type) {
    case 'online':
      return { ...m, online: a.online };
    case 'error':
      return { ...m, error: a.error };
    case 'choose':
      return { ...m, choice: a.choice };
    case 'live': {
      const msg = a.msg;
      if (msg.type === 'state') {
        const fresh = msg.round?.round !== m.round?.round;
        return { ...m, error: null, event: msg.event, round: msg.round, standings: msg.standings, roundSince: fresh ? a.now : m.roundSince };
      }
      if (msg.type === 'dispute') return m; // the director's, not the hall's
      if (!m.event) return m; // a change before the state: the state that follows has it
      let { event, round, standings, roundSince } = m;
      if (msg.round !== undefined) {
        if (msg.round?.round !== round?.round) roundSince = a.now;
        round = msg.round;
      } else if (msg.effects.some((e) => e.effect === 'round-deleted')) {
        round = null; // the only round deleted (with rounds left, the message carries the latest)
      }
      if (msg.players) event = { ...event, players: msg.players };
      if (msg.standings !== undefined) standings = msg.standings;
      const paired = round?.round ?? 0;
      const complete = standings?.after_round ?? event.rounds_complete;
      event = { ...event, seq: msg.seq, rounds_paired: paired, rounds_complete: Math.max(complete, round?.complete ? paired : 0) };
      return { ...m, event, round, standings, roundSince };
    }
  }
}

/** How long the pairings of a round in play stay up before the standings come between. */
export const PAIRINGS_FIRST_MS = 90_000;
/** In a round in play, after the first stretch: this long pairings, then STANDINGS_MS standings. */
export const PAIRINGS_MS = 40_000;
export const STANDINGS_MS = 15_000;
/** A page of a list too long for the screen stays this long. */
export const PAGE_MS = 12_000;

/**
 * What the screen shows now. Chosen by hand: that. Otherwise (docs/web.md): before round 1
 * the players entered; while a round is played its pairings, and once they have been up
 * for PAIRINGS_FIRST_MS, the standings of the rounds before it come in between for
 * STANDINGS_MS in every PAIRINGS_MS + STANDINGS_MS; once every result of the round is in,
 * the standings.
 */
export function screenOf(m: ProjectorModel, now: number): Screen {
  if (!m.event) return 'loading';
  if (m.choice === 'pairings') return m.round ? 'pairings' : 'players';
  if (m.choice === 'standings') return m.standings && m.standings.after_round > 0 ? 'standings' : m.round ? 'pairings' : 'players';
  if (!m.round) return 'players';
  if (m.round.complete) return 'standings';
  const earlier = m.standings !== null && m.standings.after_round > 0;
  const up = now - m.roundSince;
  if (!earlier || up < PAIRINGS_FIRST_MS) return 'pairings';
  return (up - PAIRINGS_FIRST_MS) % (PAIRINGS_MS + STANDINGS_MS) < PAIRINGS_MS ? 'pairings' : 'standings';
}

/** The page of `pages` showing at `now`, pages turning every PAGE_MS from `since`. */
export function pageAt(pages: number, since: number, now: number): number {
  if (pages <= 1) return 0;
  return Math.floor(Math.max(0, now - since) / PAGE_MS) % pages;
}

/**
 * A score as a club writes it: 1½, ½, 0. Every page writes scores this way (the
 * projector, the console, the phone, the print views); tiebreaks are written as
 * decimals ([`tiebreakText`]), never with ½, so the two never mix in one table.
 */
export function points(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  const whole = Math.trunc(v);
  const frac = Math.round((v - whole) * 100) / 100;
  if (frac === 0) return String(whole);
  if (frac === 0.5) return whole === 0 ? '½' : `${whole}½`;
  return v.toFixed(2).replace(/0$/, '');
}

/** A score the server writes as text (`"3.5"`, the crosstable's and a player's own), written as [`points`]. */
export function scoreText(s: string | number | null | undefined): string {
  if (s === null || s === undefined || s === '') return '–';
  const v = typeof s === 'number' ? s : Number(s);
  return Number.isFinite(v) ? points(v) : String(s);
}

/**
 * The decimal places a tiebreak column is written with: as many as its most precise
 * value needs (a Buchholz of halves: 1, a Sonneborn-Berger of quarters: 2), at most 2,
 * so that every value of the column has the same number of places and they line up.
 */
export function tiebreakDecimals(values: (number | null | undefined)[]): number {
  let d = 0;
  for (const v of values) {
    if (v === null || v === undefined || !Number.isFinite(v)) continue;
    for (let places = d; places < 2; places++) {
      if (Math.abs(Math.round(v * 10 ** places) - v * 10 ** places) < 1e-9) break;
      d = places + 1;
    }
  }
  return Math.min(d, 2);
}

/** A tiebreak's value as a decimal with `decimals` places (the column's: [`tiebreakDecimals`]); none: –. */
export function tiebreakText(v: number | null | undefined, decimals = 2): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  return v.toFixed(decimals);
}

/** Each tiebreak's decimal places in a table of standings rows. */
export function tiebreakPlaces(tiebreaks: string[], rows: { tiebreaks: { [k: string]: number | null | undefined } }[]): Record<string, number> {
  return Object.fromEntries(tiebreaks.map((t) => [t, tiebreakDecimals(rows.map((r) => r.tiebreaks[t]))]));
}

/** One game's result as the board shows it: 1–0, ½–½, 0–1, +–, –+, ––; blank until known. */
export function resultText(r: string | null): string {
  switch (r) {
    case null:
      return '';
    case '1/2':
      return '½–½';
    case '--':
      return '––';
    default:
      return r.replace('-', '–');
  }
}

/**
 * A bye in words, the same on every page (projector, console, phone, print): the
 * unpaired player's bye is "bye (unpaired)", a withdrawn player is "withdrawn", not a
 * bye. `withdrawn`: the player withdrew from this round or an earlier one.
 */
export function byeText(kind: string, withdrawn = false): string {
  if (withdrawn) return 'withdrawn';
  switch (kind) {
    case 'pab':
      return 'bye (unpaired)';
    case 'half':
      return 'half-point bye';
    case 'zero':
      return 'zero-point bye';
    case 'full':
      return 'full-point bye';
    case 'absent':
      return 'absent';
    default:
      return `bye (${kind})`;
  }
}

/** Whether player `number` is withdrawn in round `round` (from the evening's players). */
export function withdrawnIn(players: { number: number; withdrawn_from: number | null }[] | undefined, number: number, round: number): boolean {
  const p = players?.find((x) => x.number === number);
  return !!p && p.withdrawn_from !== null && p.withdrawn_from <= round;
}

/** How many results of a round are in: every game of every board. */
export function resultsIn(r: RoundView): { done: number; all: number } {
  let done = 0;
  let all = 0;
  for (const b of r.boards) {
    for (const x of b.results) {
      all += 1;
      if (x !== null) done += 1;
    }
  }
  return { done, all };
}

/** Splits `items` into pages of at most `per` (at least one page, even when empty). */
export function paginate<T>(items: T[], per: number): T[][] {
  const n = Math.max(1, Math.floor(per));
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += n) out.push(items.slice(i, i + n));
  return out.length ? out : [[]];
}
