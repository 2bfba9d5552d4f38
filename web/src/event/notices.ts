// Notices that stay true (issue 31, item 11). A refusal is about something: the pairing
// of the next round, a board's result, a player, a round. It is shown until it no longer
// holds: the same kind of action succeeds (the page clears it then), or a change of the
// evening touches what it was about (the live socket's effects say so), since the
// server would then answer otherwise. A refusal about nothing in particular goes with the
// next change of the evening.

import type { ChangeAnswer } from '../wire';

/** What a refusal is about, from the route it refused. */
export function refusalAbout(tail: string, method: string): string {
  let m: RegExpMatchArray | null;
  if (method === 'POST' && /^\/rounds\/?$/.test(tail)) return 'pair';
  if ((m = /^\/rounds\/(\d+)\/boards\/(\d+)\/result/.exec(tail))) return `board:${m[1]}:${m[2]}`;
  if ((m = /^\/rounds\/(\d+)/.exec(tail))) return `round:${m[1]}`;
  if ((m = /^\/players\/(\d+)\//.exec(tail))) return `player:${m[1]}`;
  return 'any';
}

/** One effect of a change, as the server sends it (`ChangeAnswer`, the live `change`). */
type EffectLike = ChangeAnswer['effects'][number];

/** Whether a change with `effects` lifts a refusal about `about` (it may no longer hold). */
export function refusalLifted(about: string | null | undefined, effects: EffectLike[]): boolean {
  // A game linked or begun changes nothing a refusal was about.
  const real = effects.filter((e) => e.effect !== 'game-changed');
  if (!real.length) return false;
  const [kind, a, b] = (about ?? 'any').split(':');
  const round = Number(a);
  switch (kind) {
    case 'pair':
      return true;
    case 'board':
      return real.some(
        (e) =>
          (e.effect === 'results-changed' && e.round === round && e.board === Number(b)) ||
          (['round-deleted', 'round-paired', 'repaired', 'pairing-replaced'].includes(e.effect) && (e.round ?? 0) >= round),
      );
    case 'round':
      return real.some((e) => ['round-deleted', 'round-paired', 'repaired', 'pairing-replaced', 'round-complete'].includes(e.effect) || (e.effect === 'results-changed' && e.round === round));
    case 'player':
      return real.some((e) => (e.effect === 'player-changed' && e.player === round) || ['renumbered', 'player-removed', 'round-paired', 'round-deleted'].includes(e.effect));
    default:
      return true;
  }
}
