// The print views (`/events/{id}/print/{kind}[?round=R]`): pairings, result slips for
// physical boards, standings and the crosstable, laid out for paper. Each fits A4 and
// Letter: the content is sized for the narrower width (A4's 210 mm) and the shorter
// height (Letter's 279 mm) less the margins, and rows never break across a page. The
// paper chosen on the page (A4 or Letter, remembered in this browser) only sets the
// `@page` size the browser's print dialog starts with. The data is the server's answers
// (docs/protocol.md "Evenings"), read once when the page opens; the toolbar is not
// printed.
import qrcode from 'qrcode-generator';
import { attributesModule, classModule, eventListenersModule, h, init, propsModule, type VNode } from 'snabbdom';
import { PRINT_KINDS, crossCellText, defaultPaper, pageName, roundWanted, tiebreaksNamed, type Paper, type PrintKind } from './printmodel';
import type { BoardView, Crosstable, EveningSummary, PlayerLink, PlayerLinks, RoundView, Standings } from '../wire';
import { boardGamesText, entryOptionText, matchText } from './mine';
import { byeText, points, resultText, scoreText, tiebreakPlaces, tiebreakText, withdrawnIn } from './projmodel';
import './event.css';

const KIND_TITLE: Record<PrintKind, string> = { pairings: 'Pairings', slips: 'Result slips', standings: 'Standings', crosstable: 'Crosstable', qr: 'QR codes' };

interface PrintData {
  links: PlayerLink[] | null;
  event: EveningSummary;
  round: RoundView | null;
  standings: Standings | null;
  crosstable: Crosstable | null;
}

async function getJson<T>(path: string, token: string | null = null): Promise<T> {
  const r = await fetch(path, token ? { headers: { authorization: `Bearer ${token}` } } : undefined);
  if (!r.ok) {
    let msg = `${r.status}`;
    try {
      msg = ((await r.json()) as { error?: string }).error ?? msg;
    } catch {
      /* not JSON */
    }
    throw new Error(msg);
  }
  return (await r.json()) as T;
}

// ----- views -----------------------------------------------------------------------------

function sheetHead(d: PrintData, what: string): VNode {
  const ev = d.event;
  return h('header.pr-head', [h('h1', `${ev.name}: ${what}`), h('p.pr-sub', `${ev.time_control} · ${ev.rules} · ${ev.format}${ev.rounds ? ` · ${ev.rounds} rounds` : ''}`)]);
}

function pairingsSheet(d: PrintData): VNode[] {
  const r = d.round;
  if (!r) return [sheetHead(d, 'pairings'), h('p.pr-empty', 'No round is paired yet.')];
  const two = r.boards.some((b) => b.results.length > 1);
  return [
    sheetHead(d, `round ${r.round} pairings`),
    h(`table.pr-table.pr-pairings${two ? '.two' : ''}`, [
      h('thead', h('tr', [h('th.num', 'Board'), h('th', two ? 'White in game 1' : 'White'), h('th', two ? 'White in game 2' : 'Black'), h('th.res', two ? 'Match' : 'Result')])),
      h(
        'tbody',
        r.boards.map((b) =>
          h('tr', [
            h('td.num', String(b.board)),
            h('td', `${b.white.name} (${b.white.number})`),
            h('td', `${b.black.name} (${b.black.number})`),
            // A two-game board reads as its match score with each game's winner named,
            // never as "1–0 0–1", which reads as a win and a loss (issue 31).
            h('td.res', b.results.length > 1 ? (b.results.some((x) => x !== null) ? [h('strong', matchText(b.results) ?? ''), h('small.pr-games', boardGamesText(b))] : '____') : resultText(b.results[0] ?? null) || '____'),
          ]),
        ),
      ),
    ]),
    ...(r.bye?.length ? [h('p.pr-byes', `Not paired: ${r.bye.map((b) => `${b.name} (${b.number}), ${byeText(b.kind, withdrawnIn(d.event.players, b.number, r.round))}`).join('; ')}.`)] : []),
  ];
}

function slip(d: PrintData, r: RoundView, b: BoardView): VNode {
  const games = b.results.length;
  const line = (g: number): VNode =>
    h('div.pr-game', [
      // Game 2 of a match is played with the board's Black as White.
      games > 1 ? h('p', g === 0 ? 'Game 1, colours as above' : `Game ${g + 1}, colours reversed (${b.black.name} White)`) : null,
      // On a board of two games each box names who wins it in its game, so a player
      // ticks "I won" without working out the colours (issue 31); one game needs no names.
      h(
        'p.pr-boxes',
        [
          ['1-0', '1–0'],
          ['1/2', '½–½'],
          ['0-1', '0–1'],
        ].map(([x, t]) => h('span.pr-box', [h('span.pr-tick'), ` ${games > 1 ? entryOptionText(x, b, g, t) : t}`])),
      ),
    ]);
  return h('article.pr-slip', { attrs: { 'data-board': String(b.board) } }, [
    h('p.pr-slip-head', [h('strong', `Board ${b.board}`), ` · round ${r.round} · ${d.event.name}`]),
    h('p.pr-slip-player', [h('span.pr-colour', 'White'), `${b.white.name} (${b.white.number})`]),
    h('p.pr-slip-player', [h('span.pr-colour', 'Black'), `${b.black.name} (${b.black.number})`]),
    ...Array.from({ length: games }, (_, g) => line(g)),
    h('div.pr-sign', [h('span', 'White signs'), h('span', 'Black signs')]),
  ]);
}

function slipsSheet(d: PrintData): VNode[] {
  const r = d.round;
  if (!r) return [sheetHead(d, 'result slips'), h('p.pr-empty', 'No round is paired yet.')];
  return [h('p.pr-note.noprint', `One slip per board of round ${r.round}: cut along the dashed lines; the players tick the result, sign, and hand it to the director.`), h('div.pr-slips', r.boards.map((b) => slip(d, r, b)))];
}

function standingsSheet(d: PrintData): VNode[] {
  const st = d.standings;
  if (!st || st.after_round === 0) return [sheetHead(d, 'standings'), h('p.pr-empty', 'No round is complete yet.')];
  const final = d.event.rounds !== null && st.after_round >= d.event.rounds;
  const places = tiebreakPlaces(st.tiebreaks, st.rows);
  return [
    sheetHead(d, final ? 'final standings' : `standings after round ${st.after_round}`),
    h('table.pr-table.pr-standings', [
      h('thead', h('tr', [h('th.num', 'Rank'), h('th', 'Player'), h('th.num', 'No.'), h('th.num', 'Points'), ...st.tiebreaks.map((t) => h('th.num', t))])),
      h(
        'tbody',
        st.rows.map((row) =>
          h('tr', [h('td.num', String(row.rank)), h('td', row.name), h('td.num', String(row.number)), h('td.num', points(row.points)), ...st.tiebreaks.map((t) => h('td.num', tiebreakText(row.tiebreaks[t], places[t])))]),
        ),
      ),
    ]),
    h('p.pr-note', `Points: ½ for a draw. Tiebreaks in order: ${tiebreaksNamed(st.tiebreaks)}.`),
  ];
}

function crosstableSheet(d: PrintData): VNode[] {
  const ct = d.crosstable;
  if (!ct || ct.rounds === 0) return [sheetHead(d, 'crosstable'), h('p.pr-empty', 'No round is paired yet.')];
  const rounds = Array.from({ length: ct.rounds }, (_, i) => i + 1);
  // The columns share the width left by number, name and points; type shrinks with more rounds.
  const size = ct.rounds <= 9 ? 'l' : ct.rounds <= 15 ? 'm' : ct.rounds <= 22 ? 's' : 'xs';
  return [
    sheetHead(d, `crosstable after ${ct.rounds} round${ct.rounds === 1 ? '' : 's'}`),
    h(`table.pr-table.pr-cross.pr-type-${size}`, [
      h('thead', h('tr', [h('th.num', 'No.'), h('th.name', 'Player'), ...rounds.map((r) => h('th.rd', String(r))), h('th.num', 'Pts')])),
      h(
        'tbody',
        ct.players.map((p) =>
          h('tr', [h('td.num', String(p.number)), h('td.name', p.name), ...rounds.map((r) => h('td.rd', crossCellText(p.rounds.find((c) => c.round === r)))), h('td.num', scoreText(p.points))]),
        ),
      ),
    ]),
    h('p.pr-note', 'Each cell: the opponent\'s number, the colour (w, b), the result of each game (1, ½, 0; + and − by forfeit). bye: unpaired; +F, ½H, 0Z: full, half, zero-point bye; –: not playing.'),
  ];
}

function qrSvg(text: string): string {
  const q = qrcode(0, 'M');
  q.addData(text);
  q.make();
  return q.createSvgTag({ cellSize: 4, margin: 2, scalable: true });
}

function qrSheet(d: PrintData): VNode[] {
  const links = d.links ?? [];
  const without = links.filter((p) => p.link === null);
  return [
    h('p.pr-note.noprint', 'Each player\'s personal link as a QR code: cut the cards apart and hand each player theirs. Whoever holds a card acts as that player, so give the cards out by hand.'),
    h(
      'div.pr-qrs',
      links
        .filter((p) => p.link !== null)
        .map((p) => {
          const url = new URL(p.link ?? '', location.origin).toString();
          return h('article.pr-qr', { attrs: { 'data-number': String(p.number), 'data-link': url } }, [
            h('p.pr-qr-name', [h('strong', p.name), ` (${p.number})`]),
            h('div.pr-qr-code', { attrs: { role: 'img', 'aria-label': `QR code of ${p.name}'s link` }, props: { innerHTML: qrSvg(url) } }),
            h('p.pr-qr-event', `${d.event.name}: scan to check in and see your board`),
          ]);
        }),
    ),
    ...(without.length ? [h('p.pr-note', `No QR code for ${without.map((p) => `${p.name} (${p.number}): ${p.why ?? 'no link'}`).join('; ')}.`)] : []),
  ];
}

const PAPER_KEY = 'flagfall.paper';

interface PrintModel {
  kind: PrintKind;
  /** The director's token (`?token=`), for the QR codes. */
  token: string | null;
  data: PrintData | null;
  error: string | null;
  notice: string | null;
  paper: Paper;
}

function toolbar(id: string, m: PrintModel, setPaper: (p: Paper) => void): VNode {
  const round = m.data?.round?.round;
  const href = (k: PrintKind): string => {
    const q = new URLSearchParams();
    if (round && (k === 'pairings' || k === 'slips')) q.set('round', String(round));
    if (m.token) q.set('token', m.token);
    const qs = q.toString();
    return `/events/${encodeURIComponent(id)}/print/${k}${qs ? `?${qs}` : ''}`;
  };
  // The QR codes are the director's: offered when the page was opened with the director's token.
  const kinds = PRINT_KINDS.filter((k) => k !== 'qr' || m.token);
  return h('nav.pr-tools.noprint', [
    h('a', { attrs: { href: `/events/${encodeURIComponent(id)}/projector` } }, 'Projector'),
    ...kinds.map((k) => (k === m.kind ? h('strong', KIND_TITLE[k]) : h('a', { attrs: { href: href(k) } }, KIND_TITLE[k]))),
    h('label', [
      'Paper ',
      h(
        'select',
        { props: { value: m.paper }, on: { change: (e: Event) => setPaper((e.target as HTMLSelectElement).value as Paper) } },
        [h('option', { attrs: { value: 'a4' }, props: { selected: m.paper === 'a4' } }, 'A4'), h('option', { attrs: { value: 'letter' }, props: { selected: m.paper === 'letter' } }, 'Letter')],
      ),
    ]),
    h('button', { attrs: { type: 'button' }, on: { click: () => window.print() } }, 'Print'),
  ]);
}

function printView(id: string, m: PrintModel, setPaper: (p: Paper) => void): VNode {
  let body: VNode[];
  if (m.error) body = [h('h1', 'Cannot print'), h('p.pr-error', m.error)];
  else if (!m.data) body = [h('p', 'Loading…')];
  else if (m.kind === 'pairings') body = pairingsSheet(m.data);
  else if (m.kind === 'slips') body = slipsSheet(m.data);
  else if (m.kind === 'standings') body = standingsSheet(m.data);
  else if (m.kind === 'qr') body = qrSheet(m.data);
  else body = crosstableSheet(m.data);
  const page = pageName(m.paper, m.kind, m.data?.crosstable?.rounds ?? 0);
  return h('main.print-page', { class: { [page]: true }, attrs: { 'data-kind': m.kind, 'data-ready': String(m.data !== null || m.error !== null) } }, [
    toolbar(id, m, setPaper),
    ...(m.notice ? [h('p.pr-error.noprint', m.notice)] : []),
    h('div.pr-sheet', body),
  ]);
}

const patch = init([classModule, attributesModule, propsModule, eventListenersModule]);

export function mountPrint(root: HTMLElement, id: string, kind: string, search: string): void {
  const mountPoint = document.createElement('div');
  root.replaceChildren(mountPoint);
  document.body.classList.add('print-body');
  let vnode: VNode | HTMLElement = mountPoint;
  const known = (PRINT_KINDS as readonly string[]).includes(kind);
  let stored: string | null = null;
  try {
    stored = localStorage.getItem(PAPER_KEY);
  } catch {
    /* storage refused: the default */
  }
  const token = new URLSearchParams(search).get('token');
  let m: PrintModel = {
    token,
    kind: known ? (kind as PrintKind) : 'pairings',
    data: null,
    error: known ? null : `There is no print view "${kind}": the views are ${PRINT_KINDS.join(', ')}.`,
    notice: null,
    paper: stored === 'a4' || stored === 'letter' ? stored : defaultPaper(navigator.language),
  };
  const render = (): void => {
    vnode = patch(vnode, printView(id, m, setPaper));
  };
  const setPaper = (paper: Paper): void => {
    m = { ...m, paper };
    try {
      localStorage.setItem(PAPER_KEY, paper);
    } catch {
      /* not remembered */
    }
    render();
  };
  render();
  if (!known) return;
  if (m.kind === 'qr' && !token) {
    m = { ...m, error: "The QR codes of the players' links are the director's to print: open this page from the director's link (it ends in ?token=...)." };
    render();
    return;
  }
  const base = `/api/events/${encodeURIComponent(id)}`;
  void (async () => {
    try {
      const event = await getJson<EveningSummary>(base);
      document.title = `flagfall · ${event.name} · ${KIND_TITLE[m.kind].toLowerCase()}`;
      const { round, error } = roundWanted(search, event.rounds_paired);
      const needsRound = m.kind === 'pairings' || m.kind === 'slips';
      const [r, standings, crosstable, links] = await Promise.all([
        needsRound && round > 0 ? getJson<RoundView>(`${base}/rounds/${round}`) : Promise.resolve(null),
        m.kind === 'standings' ? getJson<Standings>(`${base}/standings`) : Promise.resolve(null),
        m.kind === 'crosstable' ? getJson<Crosstable>(`${base}/crosstable`) : Promise.resolve(null),
        m.kind === 'qr' ? getJson<PlayerLinks>(`${base}/links`, token).then((v) => v.players) : Promise.resolve(null),
      ]);
      m = { ...m, data: { event, round: r, standings, crosstable, links }, notice: needsRound ? error : null };
    } catch (e) {
      m = { ...m, error: `The evening ${id} could not be read: ${(e as Error).message}` };
    }
    render();
  })();
}
