// What the lobby shows about a listed game or an open challenge: pure text, unit-tested.
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
