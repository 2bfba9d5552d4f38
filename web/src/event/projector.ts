// The projector page (`/events/{id}/projector`): the evening for the hall, live over
// `/ws/events/{id}` with no reload. One model changed only by `reduceProjector`; what the
// screen shows is `screenOf` (docs/web.md "The projector"); small snabbdom views; one
// render per animation frame, and a tick a second for the alternation and the pages of a
// list longer than the screen. Large type from the screen's height: readable from the
// back of a hall on a 16:9 projector; on a phone the lists scroll instead of paging.
import { attributesModule, classModule, eventListenersModule, h, init, styleModule, type VNode } from 'snabbdom';
import { boardGamesText, matchText } from './mine';
import type { BoardView, EveningPlayer, Standings, StandingsRow } from '../wire';
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
  tiebreakPlaces,
  tiebreakText,
  withdrawnIn,
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
  /**
   * The type's scale (1 down to FIT_MIN) that the list last drawn needed so that no
   * cell is cut off (a long name, a wide tiebreak); found again whenever what is drawn
   * (`fitKey`) changes.
   */
  fit = 1;
  fitKey = '';
  /** A long name's own smaller type (em), once the list's type is as small as a whole list should go. */
  nameFit = new Map<string, number | 'wrap'>();

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
  /** A list side by side in this many columns. */
  columns: number;
}

/** The smallest type a list is shrunk to (of the screen's height) before it is paged instead. */
const MIN_FONT_OF_HEIGHT = 1 / 50;
/** The smallest scale the fit to width takes a whole list down to (a figure cut off). */
const FIT_MIN = 0.6;
/** For a name too long, the whole list goes down to this; the name alone further, to NAME_FIT_MIN. */
const LIST_FIT_MIN = 0.86;
const NAME_FIT_MIN = 0.7;
/** The type of a name on two lines (event.css `.name.wrap`), of the row's. */
const WRAP_EM = 0.6;

/** Rows of a list below the header and above the foot, at `font` px: a row is 1.55 em, header and foot about 5 rows. */
const rowsAt = (hgt: number, font: number): number => Math.max(4, Math.floor(hgt / (font * 1.55)) - 5);

/**
 * How a list of `items` rows is laid out on this screen: on a phone, normal type and
 * the page scrolls; on a projector, the type as large as the screen's height allows for
 * the whole list on one page, in one column or, on a wide screen where that gives
 * clearly larger type, two (30 standings rows: two columns of 15). A list longer than
 * two columns of the smallest type is paged. `scale`: the fit to width (long names).
 */
/**
 * What a list's rows need beside the names, for the choice of one column or two: the em
 * of its fixed columns (numbers, results, tiebreaks), its names a row, and its longest
 * name's em (a letter about 0.6 em).
 */
interface Widths {
  fixedEm: number;
  namesPerRow: number;
  longestEm: number;
}

function layout(items = 0, scale = 1, widths?: Widths): Layout {
  const w = window.innerWidth;
  const hgt = window.innerHeight;
  if (w < NARROW_PX) return { narrow: true, font: 17, rows: Infinity, columns: 1 };
  const base = Math.max(16, Math.min(64, Math.round(hgt / 28)));
  const least = Math.max(16, Math.floor(hgt * MIN_FONT_OF_HEIGHT));
  const fontFor = (columns: number): number => Math.max(least, Math.min(base, Math.floor(hgt / ((Math.ceil(items / columns) + 5) * 1.55))));
  const wide = w / hgt > 1.45;
  const one = fontFor(1);
  const two = fontFor(2);
  // Two columns only where the longest name still fits one at its smallest type.
  const roomEm = (w - (1.6 + 1.2) * two) / 2 / two;
  // (A name's smallest is two lines of 0.6 em in its row; its number and padding about 1.5 em.)
  const namesFit = !widths || (roomEm - widths.fixedEm) / widths.namesPerRow >= (widths.longestEm * LIST_FIT_MIN * WRAP_EM) / 2 + 1.5;
  const columns = wide && one < 0.85 * two && namesFit ? 2 : 1;
  const font = Math.max(12, Math.floor((columns === 2 ? two : one) * scale));
  return { narrow: false, font, rows: rowsAt(hgt, font), columns };
}

/** The em of a name and its pairing number as the lists write them. */
const nameEm = (name: string | null | undefined): number => (name ?? '').length * 0.62;

/**
 * A player's name, in smaller type when it alone is too long for its cell (the fit to
 * width), or, longer still, on two lines of small type within its row (`wrap`).
 */
function nameV(name: string, nameFit: Map<string, number | 'wrap'>): VNode {
  const f = nameFit.get(name);
  if (f === 'wrap') return h('span.name.wrap', name);
  return h('span.name', f ? { style: { fontSize: `${f}em` } } : {}, name);
}

function boardRow(b: BoardView, nameFit: Map<string, number | 'wrap'>): VNode {
  const done = b.results.every((r) => r !== null);
  return h('tr', { class: { done }, attrs: { 'data-board': String(b.board) } }, [
    h('td.num', String(b.board)),
    h('td.white', [nameV(b.white.name, nameFit), h('span.pno', ` ${b.white.number}`)]),
    // Two games a board: the match score from the first-named player ("2–0"), never "1–0 0–1".
    b.results.length > 1
      ? h('td.res', { attrs: { title: boardGamesText(b) } }, [h('span.game.match', matchText(b.results) ?? '·')])
      : h('td.res', b.results.map((r) => h('span.game', resultText(r) || '·'))),
    h('td.black', [nameV(b.black.name, nameFit), h('span.pno', ` ${b.black.number}`)]),
  ]);
}

/** A number column's width (rows' em) for numbers up to `largest`: a digit 0.65 em, padding and room. */
const numWidth = (largest: number): string => `${Math.max(2.4, String(largest).length * 0.65 + 1.1)}em`;

function pairingsTable(boards: BoardView[], nameFit: Map<string, number | 'wrap'>): VNode {
  // Two games a board (double Swiss, matches): a result column wide enough for both.
  const two = boards.some((b) => b.results.length > 1);
  // The widths in the rows' em (a heading's em is smaller): the board number whole, the result wide enough for its games.
  return h('table.pj-pairings', { class: { two } }, [
    h('colgroup', [h('col.num', { style: { width: numWidth(Math.max(0, ...boards.map((b) => b.board))) } }), h('col.white'), h('col.res', { style: { width: two ? '9.6em' : '7em' } }), h('col.black')]),
    h('thead', h('tr', [h('th.num', 'Bd'), h('th.white', 'White'), h('th.res', 'Result'), h('th.black', 'Black')])),
    h('tbody', boards.map((b) => boardRow(b, nameFit))),
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
  const players = ctrl.model.event?.players;
  return [
    h('div.pj-columns', columns.map((c) => pairingsTable(c, ctrl.nameFit))),
    byes.length && page === pages.length - 1 ? h('p.pj-byes', byes.map((b) => `${b.name} ${b.number}: ${byeText(b.kind, withdrawnIn(players, b.number, r.round))}`).join(' · ')) : null,
    pages.length > 1 ? h('p.pj-page', `Boards ${r.boards.indexOf(shown[0]) + 1}–${r.boards.indexOf(shown[shown.length - 1]) + 1} of ${r.boards.length} · page ${page + 1} of ${pages.length}`) : null,
  ].filter((x): x is VNode => x !== null);
}

function standingRow(tbs: string[], places: Record<string, number>, row: StandingsRow, nameFit: Map<string, number | 'wrap'>): VNode {
  return h('tr', { attrs: { 'data-number': String(row.number) } }, [
    h('td.num', String(row.rank)),
    h('td.player', [nameV(row.name ?? '', nameFit), h('span.pno', ` ${row.number}`)]),
    h('td.pts', points(row.points)),
    ...tbs.map((t) => h('td.tb', tiebreakText(row.tiebreaks[t], places[t]))),
  ]);
}

/**
 * One column of the standings. The widths are the table's own (`col`, in the rows' em):
 * each tiebreak column as wide as its longest value or its name, so none is cut off.
 */
function standingsTable(tbs: string[], places: Record<string, number>, widths: Record<string, number> | null, rows: StandingsRow[], nameFit: Map<string, number | 'wrap'>): VNode {
  return h('table.pj-standings', [
    widths === null
      ? null
      : h('colgroup', [
      h('col.num', { style: { width: numWidth(Math.max(0, ...rows.map((r) => r.rank))) } }),
      h('col.player'),
      h('col.pts', { style: { width: '2.6em' } }),
          ...tbs.map((t) => h('col.tb', { style: { width: `${widths[t]}em` } })),
        ]),
    h('thead', h('tr', [h('th.num', '#'), h('th.player', 'Player'), h('th.pts', 'Pts'), ...tbs.map((t) => h('th.tb', t))])),
    h('tbody', rows.map((row) => standingRow(tbs, places, row, nameFit))),
  ].filter((x): x is VNode => x !== null));
}

/** Each tiebreak column's width (rows' em): its longest value (a digit about 0.62 em) or its name (a heading letter about 0.48), and padding. */
function tiebreakWidths(st: Standings): Record<string, number> {
  const places = tiebreakPlaces(st.tiebreaks, st.rows);
  return Object.fromEntries(
    st.tiebreaks.map((t) => {
      const longest = Math.max(1, ...st.rows.map((r) => tiebreakText(r.tiebreaks[t], places[t]).length));
      return [t, Math.max(longest * 0.62, t.length * 0.48) + 0.9];
    }),
  );
}

function standingsV(ctrl: ProjectorCtrl, lay: Layout, now: number): VNode[] {
  const st = ctrl.model.standings;
  if (!st) return [];
  const places = tiebreakPlaces(st.tiebreaks, st.rows);
  const widths = tiebreakWidths(st);
  const perPage = lay.rows * lay.columns;
  const pages = lay.narrow ? [st.rows] : paginate(st.rows, perPage);
  const page = pageAt(pages.length, ctrl.screenSince, now);
  const shown = pages[page];
  const columns = lay.narrow || shown.length <= lay.rows ? [shown] : paginate(shown, Math.ceil(shown.length / lay.columns));
  return [
    h('div.pj-columns', columns.map((rows) => standingsTable(st.tiebreaks, places, lay.narrow ? null : widths, rows, ctrl.nameFit))),
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

/** What the screen's list needs beside its names ([`Widths`]). */
function widthsOf(m: ProjectorModel, screen: Screen): Widths | undefined {
  if (screen === 'pairings' && m.round) {
    const two = m.round.boards.some((b) => b.results.length > 1);
    const longest = Math.max(0, ...m.round.boards.flatMap((b) => [nameEm(b.white.name), nameEm(b.black.name)]));
    return { fixedEm: 2.6 + (two ? 9.6 : 7) + 0.8 * 4, namesPerRow: 2, longestEm: longest };
  }
  if (screen === 'standings' && m.standings) {
    const st = m.standings;
    const w = tiebreakWidths(st);
    const fixed = 2.4 + 2.6 + st.tiebreaks.reduce((a, t) => a + w[t], 0);
    return { fixedEm: fixed, namesPerRow: 1, longestEm: Math.max(0, ...st.rows.map((r) => nameEm(r.name))) };
  }
  return undefined;
}

export function projectorView(ctrl: ProjectorCtrl): VNode {
  const now = Date.now();
  const m = ctrl.model;
  if (m.error) return h('main.projector.pj-error', [h('h1', m.error), h('p', h('a', { attrs: { href: '/' } }, 'Go to the lobby'))]);
  const screen = ctrl.current(now);
  const items = screen === 'pairings' ? (m.round?.boards.length ?? 0) : screen === 'standings' ? (m.standings?.rows.length ?? 0) : 0;
  const lay = screen === 'players' || screen === 'loading' ? layout() : layout(items, ctrl.fit, widthsOf(m, screen));
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

/**
 * Whether a cell's text is cut off: wider than the cell, or reaching into its padding (a
 * text cut by a few pixels does not make the cell scroll, but ends in "...").
 */
function isCut(td: HTMLElement): boolean {
  if (td.scrollWidth > td.clientWidth + 1) return true;
  const range = document.createRange();
  range.selectNodeContents(td);
  const text = range.getBoundingClientRect();
  const box = td.getBoundingClientRect();
  const pad = parseFloat(getComputedStyle(td).paddingRight) || 0;
  return text.width > 0 && text.right > box.right - pad + 0.5;
}

/**
 * Shrinks the type of the list on the screen until no cell of it is cut off (a long
 * name in two columns, a wide tiebreak): a cell whose text is wider than the cell.
 * What is drawn (screen, page, size, the evening's changes) is the key: when it
 * changes, the fit starts again from full size.
 */
function fitToWidth(ctrl: ProjectorCtrl): void {
  const root = document.querySelector('main.projector');
  if (!root || root.classList.contains('narrow')) return;
  const key = [ctrl.screen, window.innerWidth, window.innerHeight, ctrl.model.event?.seq ?? 0].join('|');
  if (key !== ctrl.fitKey) {
    ctrl.fitKey = key;
    if (ctrl.fit !== 1 || ctrl.nameFit.size) {
      ctrl.fit = 1;
      ctrl.nameFit = new Map();
      ctrl.redraw();
      return;
    }
  }
  const cut = Array.from(root.querySelectorAll<HTMLElement>('.pj-body td')).filter(isCut);
  if (!cut.length) return;
  // A figure cut off, or the list's type still large: all of it smaller. Then only the
  // names that are still too long, each in its own smaller type (to NAME_FIT_MIN).
  const names = cut.map((td) => td.querySelector<HTMLElement>('.name'));
  if ((names.some((n) => !n) || ctrl.fit > LIST_FIT_MIN) && ctrl.fit > FIT_MIN) {
    ctrl.fit = Math.max(FIT_MIN, ctrl.fit * 0.94);
    ctrl.redraw();
    return;
  }
  let changed = false;
  cut.forEach((td, i) => {
    const n = names[i];
    const name = n?.textContent ?? '';
    const now = ctrl.nameFit.get(name) ?? 1;
    if (!n || now === 'wrap') return;
    const want = Math.floor(now * (td.clientWidth / td.scrollWidth) * 100) / 100 - 0.01;
    ctrl.nameFit.set(name, want < NAME_FIT_MIN ? 'wrap' : want);
    changed = true;
  });
  if (changed) ctrl.redraw();
}

const patch = init([classModule, attributesModule, styleModule, eventListenersModule]);

export function mountProjector(root: HTMLElement, id: string): () => void {
  const mountPoint = document.createElement('div');
  root.replaceChildren(mountPoint);
  document.body.classList.add('projector-body');
  let vnode: VNode | HTMLElement = mountPoint;
  const ctrl: ProjectorCtrl = new ProjectorCtrl(id, () => {
    vnode = patch(vnode, projectorView(ctrl));
    fitToWidth(ctrl);
  });
  void ctrl.start();
  ctrl.redraw();
  return () => ctrl.stop();
}
