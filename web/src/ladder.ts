// What the director console knows without a page: the director links this browser holds
// (localStorage), the offences and their penalty ladders, a pending claim in words. Pure
// (no DOM framework), so the lobby, the challenge page and the unit tests share it.
import type { Color, Pending } from './protocol';

const STORE = 'flagfall.director';

export function directorGames(): Record<string, string> {
  try {
    const v = JSON.parse(localStorage.getItem(STORE) ?? '{}');
    return v && typeof v === 'object' ? (v as Record<string, string>) : {};
  } catch {
    return {};
  }
}

export function rememberDirectorGame(id: string, token: string): void {
  const all = directorGames();
  all[id] = token;
  try {
    localStorage.setItem(STORE, JSON.stringify(all));
  } catch {
    /* not remembered */
  }
}

export function forgetDirectorGame(id: string): void {
  const all = directorGames();
  delete all[id];
  localStorage.setItem(STORE, JSON.stringify(all));
}

export const OFFENCE_KINDS: [string, string][] = [
  ['two_hands', 'Two hands'],
  ['displaced_pieces', 'Displaced pieces'],
  ['knocked_clock', 'Knocked the clock'],
  ['touch_move', 'Touch move'],
  ['other', 'Other'],
];

export const PENALTY_TEXT: Record<string, string> = {
  warning: 'a warning',
  opponent_plus_minute: "one minute added to the opponent's clock",
  offender_minus_minute: "one minute taken from the offender's clock",
  forfeit: 'loss of the game',
  warning_or_minute_if_flag_down: 'a warning, or a minute if a flag is down',
  not_an_offence: 'nothing: not an offence in this ruleset',
};

export interface Ladder {
  ladder: string[];
  rule: string;
}

/**
 * The penalty the ruleset's ladder gives for the next offence of `kind` by a player who
 * already committed `count` of that kind: the ladder's last step repeats.
 */
export function nextPenalty(ladder: Ladder | undefined, count: number): { step: string; text: string; rule: string } | null {
  if (!ladder || ladder.ladder.length === 0) return null;
  const step = ladder.ladder[Math.min(count, ladder.ladder.length - 1)];
  return { step, text: PENALTY_TEXT[step] ?? step, rule: ladder.rule };
}

/** Offences already recorded against `player` of `kind`, counted from the stored script. */
export function offenceCount(scriptLines: string, player: Color, kind: string): number {
  let n = 0;
  for (const line of scriptLines.split('\n')) {
    if (!line.trim()) continue;
    try {
      const ev = JSON.parse(line) as { offence?: { player?: string; kind?: string } };
      if (ev.offence && ev.offence.player === player && ev.offence.kind === kind) n += 1;
    } catch {
      /* the setup line or a line the server wrote differently: not an offence */
    }
  }
  return n;
}

export function pendingText(p: Pending): string {
  const who = p.claimant === 'white' ? 'White' : 'Black';
  const rec = p.recommendation;
  const reasons = rec?.reasons ?? [];
  const advice = rec ? ` The assistant recommends: ${rec.grant ? 'grant' : 'deny'}${reasons.length ? ` (${reasons.join('; ')})` : ''}.` : '';
  return `${who} claims ${p.claim.replace('_', ' ')}; the clock is stopped.${advice}`;
}

export function pendingRule(p: Pending): string | null {
  return p.recommendation?.rule ?? null;
}

