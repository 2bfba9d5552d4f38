// The projector page (`/events/{id}/projector`): the evening for the hall, live over
// `/ws/events/{id}` with no reload. One model changed only by `reduceProjector`; what the
// screen shows is `screenOf` (docs/web.md "The projector"); small snabbdom views; one
// render per animation frame, and a tick a second for the alternation and the pages of a
// list longer than the screen. Large type from the screen's height: readable from the
// back of a hall on a 16:9 projector; on a phone the lists scroll instead of paging.
import { attributesModule, classModule, eventListenersModule, h, init, styleModule, type VNode } from 'snabbdom';
import { boardGamesText, matchText } from './mine';
import type { BoardView, EveningPlayer, StandingsRow } from '../wire';
import { liveEvening } from './live';
import {
  byeText,
  initialProjector,
  pageAt,
  paginate,
  points,
  reduceProjector,
  resultText,
  resultsIn,
  screenOf,
  tiebreakText,
  type Choice,
  type ProjectorAction,
  type ProjectorModel,
  type Screen,
} from './projmodel';
import './event.css';

/** Below this width the page is a phone's: normal type, lists scroll. */
const NARROW_PX = 700;

class ProjectorCtrl {
  model: ProjectorModel = initialProjector();
  private frame = 0;
  private timers: ReturnType<typeof setInterval>[] = [];
  private stopLive: (() => void) | null = null;
  /** The screen last drawn and since when: a long list's pages turn counting from it. */
  screen: Screen = 'loading';
  screenSince = 0;

  constructor(
    readonly id: string,
    private readonly onRedraw: () => void,
  ) {}

  dispatch(a: ProjectorAction): void {
    this.model = reduceProjector(this.model, a);
    this.redraw();
  }

  redraw(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.onRedraw();
    });
  }

  async start(): Promise<void> {
    this.timers.push(setInterval(() => this.redraw(), 1000));
    window.addEventListener('resize', this.onResize);
    // An unknown evening is said once, not retried on the socket for ever.
    const r = await fetch(`/api/events/${encodeURIComponent(this.id)}`).catch(() => null);
    if (r && r.status === 404) {
      this.dispatch({ type: 'error', error: `There is no evening ${this.id} on this server.` });
      return;
    }
    this.stopLive = liveEvening(
      this.id,
      (msg) => this.dispatch({ type: 'live', msg, now: Date.now() }),
      (status) => this.dispatch({ type: 'online', online: status === 'online' }),
    );
  }

  stop(): void {
    this.timers.forEach(clearInterval);
    window.removeEventListener('resize', this.onResize);
    this.stopLive?.();
    cancelAnimationFrame(this.frame);
  }

  private onResize = (): void => this.redraw();

  /** The screen now, noting when it changed. */
  current(now: number): Screen {
    const s = screenOf(this.model, now);
    if (s !== this.screen) {
      this.screen = s;
      this.screenSince = now;
    }
    return s;
  }
}

// ----- views -----------------------------------------------------------------------------

interface Layout {
  narrow: boolean;
  /** Font size in px of the lists. */
  font: number;
  /** Rows of a list that fit below the header (a table's head included). */
  rows: number;
  /** Pairings side by side (a wide screen with more boards than rows). */
  columns: number;
}

function layout(): Layout {
  const w = window.innerWidth;
  const hgt = window.innerHeight;
  if (w < NARROW_PX) return { narrow: true, font: 17, rows: Infinity, columns: 1 };
  const font = Math.max(16, Math.min(64, Math.round(hgt / 28)));
  // Header and foot take about 4.2 rows' height; a row is 1.55 em.
  const rows = Math.max(4, Math.floor(hgt / (font * 1.55)) - 5);
  return { narrow: false, font, rows, columns: w / hgt > 1.45 ? 2 : 1 };
}

function boardRow(b: BoardView): VNode {
  const done = b.results.every((r) => r !== null);
  return h('tr', { class: { done }, attrs: { 'data-board': String(b.board) } }, [
    h('td.num', String(b.board)),
    h('td.white', [h('span.name', b.white.name), h('span.pno', ` ${b.white.number}`)]),
    // Two games a board: the match score from the first-named player ("2–0"), never "1–0 0–1".
    b.results.length > 1
      ? h('td.res', { attrs: { title: boardGamesText(b) } }, [h('span.game.match', matchText(b.results) ?? '·')])
      : h('td.res', b.results.map((r) => h('span.game', resultText(r) || '·'))),
    h('td.black', [h('span.name', b.black.name), h('span.pno', ` ${b.black.number}`)]),
  ]);
}

function pairingsTable(boards: BoardView[]): VNode {
  // Two games a board (double Swiss, matches): a result column wide enough for both.
  const two = boards.some((b) => b.results.length > 1);
  return h('table.pj-pairings', { class: { two } }, [
    h('thead', h('tr', [h('th.num', 'Bd'), h('th.white', 'White'), h('th.res', 'Result'), h('th.black', 'Black')])),
    h('tbody', boards.map(boardRow)),
  ]);
}

function pairingsV(ctrl: ProjectorCtrl, lay: Layout, now: number): VNode[] {
  const r = ctrl.model.round;
  if (!r) return [];
  const perPage = lay.rows * lay.columns;
  const pages = lay.narrow ? [r.boards] : paginate(r.boards, perPage);
  const page = pageAt(pages.length, ctrl.screenSince, now);
  const shown = pages[page];
  const columns = lay.narrow || shown.length <= lay.rows ? [shown] : paginate(shown, Math.ceil(shown.length / lay.columns));
  const byes = r.bye ?? [];
  return [
    h('div.pj-columns', columns.map(pairingsTable)),
    byes.length && page === pages.length - 1 ? h('p.pj-byes', byes.map((b) => `${b.name} ${b.number}: ${byeText(b.kind)}`).join(' · ')) : null,
    pages.length > 1 ? h('p.pj-page', `Boards ${r.boards.indexOf(shown[0]) + 1}–${r.boards.indexOf(shown[shown.length - 1]) + 1} of ${r.boards.length} · page ${page + 1} of ${pages.length}`) : null,
  ].filter((x): x is VNode => x !== null);
}

function standingRow(tbs: string[], row: StandingsRow): VNode {
  return h('tr', { attrs: { 'data-number': String(row.number) } }, [
    h('td.num', String(row.rank)),
    h('td.player', [h('span.name', row.name), h('span.pno', ` ${row.number}`)]),
    h('td.pts', points(row.points)),
    ...tbs.map((t) => h('td.tb', tiebreakText(row.tiebreaks[t]))),
  ]);
}

function standingsV(ctrl: ProjectorCtrl, lay: Layout, now: number): VNode[] {
  const st = ctrl.model.standings;
  if (!st) return [];
  const pages = lay.narrow ? [st.rows] : paginate(st.rows, lay.rows);
  const page = pageAt(pages.length, ctrl.screenSince, now);
  return [
    h('table.pj-standings', [
      h('thead', h('tr', [h('th.num', '#'), h('th.player', 'Player'), h('th.pts', 'Pts'), ...st.tiebreaks.map((t) => h('th.tb', t))])),
      h('tbody', pages[page].map((row) => standingRow(st.tiebreaks, row))),
    ]),
    pages.length > 1 ? h('p.pj-page', `Page ${page + 1} of ${pages.length}`) : null,
  ].filter((x): x is VNode => x !== null);
}

function playersV(ctrl: ProjectorCtrl, lay: Layout, now: number): VNode[] {
  const players = (ctrl.model.event?.players ?? []).filter((p) => p.withdrawn_from === null);
  const per = lay.rows * (lay.columns === 2 ? 3 : 1);
  const pages = lay.narrow ? [players] : paginate(players, per);
  const page = pageAt(pages.length, ctrl.screenSince, now);
  const inCount = players.filter((p) => p.checked_in).length;
  const item = (p: EveningPlayer): VNode =>
    h('li', { class: { in: p.checked_in } }, [h('span.pno', `${p.number}`), ' ', h('span.name', p.name), p.checked_in ? h('span.mark', { attrs: { title: 'checked in' } }, ' ✓') : null].filter((x) => x !== null) as VNode[]);
  return [
    h('p.pj-lead', players.length ? `${players.length} players entered, ${inCount} checked in. Round 1 is not paired yet.` : 'No players entered yet.'),
    h('ul.pj-players', { style: { columnCount: String(lay.narrow ? 1 : lay.columns === 2 ? 3 : 1) } }, pages[page].map(item)),
    pages.length > 1 ? h('p.pj-page', `Page ${page + 1} of ${pages.length}`) : null,
  ].filter((x): x is VNode => x !== null);
}

const SCREEN_TITLE: Record<Screen, string> = { loading: 'Connecting…', players: 'Players', pairings: 'Pairings', standings: 'Standings' };

function titleOf(m: ProjectorModel, screen: Screen): string {
  const ev = m.event;
  if (!ev) return '';
  const of = ev.rounds ? ` of ${ev.rounds}` : '';
  if (screen === 'pairings' && m.round) return `Round ${m.round.round}${of}: pairings`;
  if (screen === 'standings' && m.standings) {
    const last = ev.rounds !== null && m.standings.after_round >= ev.rounds && m.round?.complete;
    return last ? 'Final standings' : `Standings after round ${m.standings.after_round}${of}`;
  }
  return SCREEN_TITLE[screen];
}

function footV(ctrl: ProjectorCtrl): VNode {
  const m = ctrl.model;
  const choose = (c: Choice, label: string): VNode =>
    h('button', { class: { on: m.choice === c }, attrs: { type: 'button', 'aria-pressed': String(m.choice === c) }, on: { click: () => ctrl.dispatch({ type: 'choose', choice: c }) } }, label);
  const progress = m.round && !m.round.complete ? resultsIn(m.round) : null;
  return h('footer.pj-foot', [
    h('span.pj-status', [
      h('span.pj-conn', { class: { online: m.online } }, m.online ? 'live' : 'reconnecting…'),
      progress ? h('span.pj-progress', ` · round ${m.round?.round}: ${progress.done} of ${progress.all} results in`) : null,
    ].filter((x): x is VNode => x !== null)),
    h('span.pj-choice', [choose('auto', 'Auto'), choose('pairings', 'Pairings'), choose('standings', 'Standings')]),
  ]);
}

export function projectorView(ctrl: ProjectorCtrl): VNode {
  const now = Date.now();
  const m = ctrl.model;
  const lay = layout();
  if (m.error) return h('main.projector.pj-error', [h('h1', m.error), h('p', h('a', { attrs: { href: '/' } }, 'Go to the lobby'))]);
  const screen = ctrl.current(now);
  const body = screen === 'pairings' ? pairingsV(ctrl, lay, now) : screen === 'standings' ? standingsV(ctrl, lay, now) : screen === 'players' ? playersV(ctrl, lay, now) : [h('p.pj-lead', 'Connecting to the evening…')];
  return h('main.projector', { class: { narrow: lay.narrow }, style: { fontSize: `${lay.font}px` }, attrs: { 'data-screen': screen } }, [
    h('header.pj-head', [
      h('span.pj-event', m.event?.name ?? ''),
      h('h1.pj-title', titleOf(m, screen)),
      m.event ? h('span.pj-tc', `${m.event.time_control} · ${m.event.format}`) : null,
    ].filter((x): x is VNode => x !== null)),
    h('section.pj-body', body),
    footV(ctrl),
  ]);
}

const patch = init([classModule, attributesModule, styleModule, eventListenersModule]);

export function mountProjector(root: HTMLElement, id: string): () => void {
  const mountPoint = document.createElement('div');
  root.replaceChildren(mountPoint);
  document.body.classList.add('projector-body');
  let vnode: VNode | HTMLElement = mountPoint;
  const ctrl: ProjectorCtrl = new ProjectorCtrl(id, () => {
    vnode = patch(vnode, projectorView(ctrl));
  });
  void ctrl.start();
  ctrl.redraw();
  return () => ctrl.stop();
}
