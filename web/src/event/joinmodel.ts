// The venue page's model (`join.ts`): one reducer, and finding a board by name. No DOM.
import type { BoardView, EveningSummary, RoundView } from '../wire';
import type { LiveStatus } from './live';

export interface JoinModel {
  event: EveningSummary | null;
  round: RoundView | null;
  search: string;
  live: LiveStatus;
  error: string | null;
}

export type JoinAction =
  | { type: 'event'; event: EveningSummary }
  | { type: 'round'; round: RoundView | null }
  | { type: 'search'; text: string }
  | { type: 'status'; live: LiveStatus }
  | { type: 'error'; error: string };

export function reduceJoin(m: JoinModel, a: JoinAction): JoinModel {
  switch (a.type) {
    case 'event':
      return { ...m, event: a.event, error: null };
    case 'round':
      return { ...m, round: a.round };
    case 'search':
      return { ...m, search: a.text };
    case 'status':
      return { ...m, live: a.live };
    case 'error':
      return { ...m, error: a.error };
  }
}

/** A name as searched: no accents, no case, no spaces around. */
export function fold(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .trim();
}

/** The boards of the round where a player's name contains `search` (case and accents ignored); all of them for an empty search. */
export function boardsFor(round: RoundView | null, search: string): BoardView[] {
  if (!round) return [];
  const q = fold(search);
  if (!q) return round.boards;
  return round.boards.filter((b) => fold(b.white.name).includes(q) || fold(b.black.name).includes(q));
}
