// What the lobby shows about a listed game or an open challenge, and the challenge page's
// model and reducer: pure, unit-tested.
import type { Challenge, GameSummary } from './api';

const MODE_TEXT: Record<string, string> = { otb: 'over the board', online: 'online' };

/** A listed game's players ("Ann – Bo", "Anonymous" for a player without a name) and its details. */
export function gameSummaryText(g: GameSummary, now: (ms: number) => string = timeOfDay): { names: string; what: string } {
  const rules = g.rules;
  const tc = g.time_control;
  const names = `${g.white || 'Anonymous'} – ${g.black || 'Anonymous'}`;
  const created = typeof g.created_ms === 'number' ? `created ${now(g.created_ms)}` : '';
  const what = [rules, tc, g.mode ? MODE_TEXT[g.mode] ?? g.mode : '', created].filter(Boolean).join(' · ');
  return { names, what };
}

/**
 * An open challenge: who offers what, and the colours as the reader gets them (the
 * accepter in the lobby, or the creator on the page that waits).
 */
export function challengeText(c: Challenge, forCreator = false): string {
  const who = c.name || 'Someone';
  const mine = c.color === 'white' ? 'White' : 'Black';
  const theirs = c.color === 'white' ? 'Black' : 'White';
  const colour =
    c.color === 'random' ? (forCreator ? 'colours drawn when someone accepts' : 'random colours') : forCreator ? `you play ${mine}` : `${mine} for ${who}, so you play ${theirs}`;
  return `${who} · ${c.rules} · ${c.time_control} · ${MODE_TEXT[c.mode] ?? c.mode} · ${colour}`;
}

function timeOfDay(ms: number): string {
  return new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/** Where the creator goes once the challenge is accepted (null while it waits). */
export function creatorDestination(c: Challenge): { url: string } | null {
  if (c.status !== 'accepted' || !c.game) return null;
  // A challenge's game has no director: the creator holds their own colour's token only.
  return { url: c.game.url };
}

/** What the waiting page shows: the challenge as last read, where it stands, an error. */
export interface ChallengeModel {
  challenge: Challenge | null;
  status: string;
  /** Nothing more to wait for (accepted, cancelled, expired). */
  done: boolean;
  error: string | null;
}

export type ChallengeAction = { type: 'read'; challenge: Challenge; secret: boolean } | { type: 'cancelled' } | { type: 'error'; error: string };

/** The waiting page's one reducer. */
export function reduceChallenge(m: ChallengeModel, a: ChallengeAction): ChallengeModel {
  switch (a.type) {
    case 'error':
      return { ...m, error: a.error };
    case 'cancelled':
      return { ...m, status: 'This challenge was cancelled.', done: true, error: null };
    case 'read': {
      const c = a.challenge;
      const base = { ...m, challenge: c, error: null };
      if (creatorDestination(c)) return { ...base, status: 'Accepted: going to the game…', done: true };
      if (c.status === 'cancelled') return { ...base, status: 'This challenge was cancelled.', done: true };
      if (c.status === 'expired') return { ...base, status: 'This challenge expired: nobody accepted it within half an hour. Open a new one from the lobby.', done: true };
      if (c.status === 'accepted') return { ...base, status: 'Someone accepted this challenge.', done: true };
      return { ...base, status: 'Open: waiting for someone to accept…' };
    }
  }
}
