// Parts of the director's console (console.ts mounts them): the standings as the console
// shows them, the byes of a round and the games' links in words, and the evening's
// Broadcast source (issue 31). Scores and tiebreaks are written as on every other page
// (projmodel.ts: scores with ½, tiebreaks as decimals with the column's places).
import { h, type VNode } from 'snabbdom';
import { copyButton } from '../copybutton';
import type { EveningPlayer, RoundView, Standings } from '../wire';
import { tiebreakName } from './printmodel';
import { byeText, points, tiebreakPlaces, tiebreakText, withdrawnIn } from './projmodel';

/** The console's standings table: on a phone it fits the width (names wrap, figures stay whole). */
export function standingsTable(st: Standings): VNode {
  const places = tiebreakPlaces(st.tiebreaks, st.rows);
  return h('table.standings', [
    h('thead', h('tr', [h('th.num', 'Rank'), h('th.name', 'Name'), h('th.num', 'Pts'), ...st.tiebreaks.map((t) => h('th.num.tb', { attrs: { title: tiebreakName(t) } }, t))])),
    h(
      'tbody',
      st.rows.map((r) =>
        h('tr', { attrs: { 'data-number': String(r.number) } }, [
          h('td.num', String(r.rank)),
          h('td.name', r.name),
          h('td.num.pts', points(r.points)),
          ...st.tiebreaks.map((t) => h('td.num.tb', tiebreakText(r.tiebreaks[t], places[t]))),
        ]),
      ),
    ),
  ]);
}

/** A round's byes in words, as the projector and the print views write them. */
export function byesLine(r: RoundView, players: EveningPlayer[] | undefined): VNode | null {
  if (!r.bye?.length) return null;
  return h('p.byes', `Not paired: ${r.bye.map((b) => `${b.name} (${b.number}), ${byeText(b.kind, withdrawnIn(players, b.number, r.round))}`).join('; ')}`);
}

/** The links to a board's games' consoles, one per line (a match: game 1, game 2). */
export function gameLinks(games: (string | null)[], href: (id: string) => string): VNode {
  const links = games.flatMap((g, i) => (g ? [h('a.gamelink', { attrs: { href: href(g), target: '_blank' } }, games.length > 1 ? `Game ${i + 1} console` : 'Game console')] : []));
  return h('span.gamelinks', links);
}

/** The URL lichess's Broadcast polls for round N of the evening: `{}` stands for the round. */
export function broadcastUrl(id: string): string {
  return `${location.origin}/api/events/${encodeURIComponent(id)}/export/pgn?round={}`;
}

/** The evening's Broadcast source, with how to use it. */
export function broadcastV(id: string): VNode {
  const url = broadcastUrl(id);
  return h('section.broadcast', { attrs: { 'aria-labelledby': 'broadcast-title' } }, [
    h('h2#broadcast-title', 'Broadcast'),
    h(
      'p',
      'Each round’s games as PGN, public while the round is played (moves and clocks as they are played, the results as they come in). To show the evening on lichess, create a Broadcast there and give each round this source URL with the round’s number in place of {} (round 3: …?round=3); lichess reads it again every few seconds.',
    ),
    h('div.linkrow', [
      h('input#broadcast-url.link', { attrs: { type: 'text', readonly: true, 'aria-label': 'the Broadcast source URL' }, props: { value: url } }),
      copyButton(url, 'copy the Broadcast source URL'),
    ]),
  ]);
}

/** A dispute card's heading: round, board and, on a board of two games, which game. */
export function disputeTitle(d: { round: number; board: number; game_number: number; white: string; black: string }, round: RoundView | null, format: string | undefined): string {
  const board = round?.round === d.round ? round.boards.find((b) => b.board === d.board) : undefined;
  const games = board ? board.results.length : /double|match/i.test(format ?? '') ? 2 : 1;
  return `Round ${d.round}, board ${d.board}${games > 1 ? `, game ${d.game_number} of ${games}` : ''}: ${d.white} – ${d.black}`;
}

