// An evening's game on the game page (issue 31): the evening, round and board named above
// the board with the way back to the player's evening page; after the game, no rematch
// (the evening pairs the next game) but the next game of a two-game pairing.
import { h, type VNode } from 'snabbdom';
import type { GameEvening } from '../wire';
import type { GameCtrl } from './ctrl';
import './evening.css';

/** The way back: a player's evening page, the director's console, or the projector for a spectator. */
export function eveningLink(ctrl: GameCtrl, e: GameEvening): string {
  const id = encodeURIComponent(e.id);
  const token = ctrl.opts.token ? `?token=${encodeURIComponent(ctrl.opts.token)}` : '';
  if (ctrl.me()) return `/events/${id}/player${token}`;
  if (ctrl.model.role === 'director') return `/events/${id}/direct${token}`;
  return `/events/${id}/projector`;
}

/** "Club night · round 2 · board 3 · game 1 of 2", and the way back. */
export function eveningBar(ctrl: GameCtrl): VNode | null {
  const e = ctrl.evening;
  if (!e) return null;
  const back = ctrl.me() ? 'Back to your evening' : ctrl.model.role === 'director' ? 'Back to the console' : 'The evening on the projector';
  return h('nav.evening-bar', { attrs: { 'aria-label': 'the evening of this game' } }, [
    h('span.evening-where', [h('strong.evening-name', e.name), ` · round ${e.round} · board ${e.board}${e.games.length > 1 ? ` · game ${e.game} of ${e.games.length}` : ''}`]),
    ' ',
    h('a.evening-back', { attrs: { href: eveningLink(ctrl, e) } }, back),
  ]);
}

/** After an evening's game: the board's next game to play (a two-game pairing), and the way back. */
export function eveningAfterV(ctrl: GameCtrl, e: GameEvening): VNode {
  const next = e.games[e.game];
  const token = ctrl.opts.token ? `?token=${encodeURIComponent(ctrl.opts.token)}` : '';
  return h('section.evening-after', { attrs: { 'aria-label': 'after the game' } }, [
    h('p', next ? `Game ${e.game} of your pairing is over. Game ${e.game + 1} is next, colours reversed.` : 'Your game is over: the evening has its result. The next round is paired on your evening page.'),
    next ? h('a.button.primary.next-game', { attrs: { href: `${next.url}${token}` } }, `Play game ${e.game + 1}`) : null,
    ' ',
    h('a.button.evening-back', { attrs: { href: eveningLink(ctrl, e) } }, 'Back to your evening'),
  ]);
}
