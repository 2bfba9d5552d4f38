// What the director console keeps without a page: the director links this browser holds
// (localStorage), and a pending claim in words. The offences and the ladder's next penalty
// come from the server (`actions.director` of the state). Pure (no DOM framework), so the
// lobby, the challenge page and the unit tests share it.
import type { Pending } from './protocol';

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

export function pendingText(p: Pending): string {
  const who = p.claimant === 'white' ? 'White' : 'Black';
  const rec = p.recommendation;
  const advice = ` The assistant recommends: ${rec.grant ? 'grant' : 'deny'}${rec.reasons.length ? ` (${rec.reasons.join('; ')})` : ''}.`;
  return `${who} claims ${p.claim.replace('_', ' ')}; the clock is stopped.${advice}`;
}

export function pendingRule(p: Pending): string {
  return p.recommendation.rule;
}

