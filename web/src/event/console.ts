// The director's console of an evening (`/events/{id}/direct?token=T`): players and
// check-in, the next round (its refusal shown in the server's words), the pairings with
// their games' director consoles, results as they come in, disagreements and the games
// waiting for the director (with each game's record), results entered or corrected with
// the log, a deputy's link, the exports. Live over `/ws/events/{id}`; one reducer
// (model.ts), small snabbdom views; no chess in the browser.
import { attributesModule, classModule, eventListenersModule, h, init, propsModule, type VNode } from 'snabbdom';
import { formatClock } from '../clock';
import { copyButton } from '../copybutton';
import { getGame } from '../api';
import type { BoardView, DeputyCreated, Dispute, EveningLog, EveningPlayer, EveningSummary, GameState, LogEntryView, PlayerAction, PlayersAdded, RoundView } from '../wire';
import { absolute, disputeText, eventApi, eventUpload, playerAction, resultText } from './common';
import { consoleByesV } from './byes';
import { consoleMatchText, entryOptionText } from './mine';
import { liveEvening } from './live';
import { uploadType } from './setupmodel';
import { menuV } from './menu';
import { PlayerEditor } from './players';
import { rememberEvening } from './remember';
import { ReportEditor } from './reportform';
import { initialConsole, reduceConsole, type ConsoleAction, type ConsoleModel } from './model';
import { refusalAbout } from './notices';
import { RoundsPanel, latestToolsV, pastRoundV, repairNoticeV, roundPickerV } from './rounds';
import { broadcastV, byesLine, disputeTitle, gameLinks, standingsTable } from './consoleparts';
import { pgnSans, withSan } from './pgnsan';

const RESULTS = ['1-0', '1/2', '0-1', '+-', '-+', '--'];

class ConsoleCtrl {
  model: ConsoleModel = initialConsole();
  /** Every round seen and corrected, unpairing, pairing by hand, players brought back (rounds.ts). */
  readonly rounds: RoundsPanel = new RoundsPanel(this);
  private frame = 0;
  private stopLive: () => void = () => {};
  readonly editor = new PlayerEditor(() => this.onRedraw());
  readonly details = new ReportEditor(() => this.onRedraw());

  constructor(
    readonly id: string,
    readonly token: string,
    private readonly onRedraw: () => void,
  ) {}

  dispatch(a: ConsoleAction): void {
    this.model = reduceConsole(this.model, a);
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.onRedraw();
    });
  }

  start(): void {
    this.stopLive = liveEvening(
      this.id,
      (msg) => {
        this.dispatch({ type: 'live', msg });
        this.rounds.onLive(msg);
        // A change may bring disagreements or new rounds the message does not carry.
        if (msg.type === 'change') void this.refresh();
        this.fetchRecords();
        if (this.model.log && msg.type === 'change') void this.showLog();
      },
      (live) => this.dispatch({ type: 'status', live }),
      // The director's socket: disputes and the players' reports are the director's alone.
      this.token,
    );
  }

  stop(): void {
    this.stopLive();
    cancelAnimationFrame(this.frame);
  }

  async refresh(): Promise<void> {
    try {
      const event = await eventApi<EveningSummary>(this.id, '', this.token);
      this.dispatch({ type: 'event', event });
      // A player's report changes the round (what each side reported) but brings no round.
      if (event.rounds_paired > 0) this.dispatch({ type: 'round', round: await eventApi<RoundView>(this.id, `/rounds/${event.rounds_paired}`, this.token) });
    } catch (e) {
      this.dispatch({ type: 'error', error: `Could not read the event: ${(e as Error).message}` });
    }
  }

  /** Every disputed game's record, read again when a dispute changes. */
  fetchRecords(): void {
    for (const d of this.model.disputes) {
      // The record, and its moves in SAN from the game's PGN (over the board the record has none until the game ends).
      void Promise.all([getGame(d.game), fetch(`/api/games/${encodeURIComponent(d.game)}/pgn`).then((r) => (r.ok ? r.text() : ''))])
        .then(([record, pgn]) => this.dispatch({ type: 'record', game: d.game, record: withSan(record, pgnSans(pgn)) }))
        .catch(() => {});
    }
  }

  /** A director's call of the API; a refusal shows in the server's words. */
  async act<T>(tail: string, method: string, body?: unknown, done?: (answer: T) => void): Promise<void> {
    this.dispatch({ type: 'busy', on: true });
    try {
      const answer = await eventApi<T>(this.id, tail, this.token, method, body);
      this.dispatch({ type: 'error', error: null });
      done?.(answer);
    } catch (e) {
      this.dispatch({ type: 'error', error: (e as Error).message, about: refusalAbout(tail, method) });
    }
    this.dispatch({ type: 'busy', on: false });
  }

  async showLog(): Promise<void> {
    try {
      const { log } = await eventApi<EveningLog>(this.id, '/log', this.token);
      this.dispatch({ type: 'log', log });
    } catch (e) {
      this.dispatch({ type: 'error', error: `Could not read the log: ${(e as Error).message}` });
    }
  }

  /** The players of a CSV or TRF file, all or none; their links listed after. */
  async upload(file: File, checkIn: boolean, done: () => void): Promise<void> {
    this.dispatch({ type: 'busy', on: true });
    try {
      const text = await file.text();
      const a = await eventUpload<PlayersAdded>(this.id, `/players${checkIn ? '?check_in=true' : ''}`, this.token, text, uploadType(file.name));
      done();
      this.dispatch({
        type: 'notice',
        notice: {
          text: `${a.players.length} player${a.players.length === 1 ? '' : 's'} entered from ${file.name}${checkIn ? ' and checked in' : ''}. Their personal links (give each their own), shown here until your next action; every player's QR card shows them again at any time:`,
          links: a.players.map((p) => ({ name: p.name, link: absolute(p.link) })),
        },
      });
    } catch (e) {
      this.dispatch({ type: 'error', error: `${file.name} was not entered (no player of it): ${(e as Error).message}` });
    }
    this.dispatch({ type: 'busy', on: false });
  }

  gameLink(game: string): string {
    return `/direct/${encodeURIComponent(game)}?token=${encodeURIComponent(this.token)}`;
  }
}

const value = (ev: Event): string => (ev.target as HTMLInputElement).value;

function headerV(ctrl: ConsoleCtrl): VNode {
  const e = ctrl.model.event;
  const live = ctrl.model.live;
  return h('header.top', [
    h('a.brand', { attrs: { href: '/' } }, 'flagfall'),
    h('span.game-title', e ? `${e.name} · director` : 'Evening · director'),
    h(`span.livestate.${live}`, { attrs: { role: 'status' } }, live === 'online' ? 'live' : live === 'connecting' ? 'connecting…' : 'offline: reconnecting…'),
  ]);
}

function summaryV(e: EveningSummary): VNode {
  const planned = e.rounds ? ` of ${e.rounds}` : '';
  const where = e.play === 'server' ? `games on this server (${e.mode === 'online' ? 'online' : 'over the board'})` : `physical boards, results reported by ${e.confirm === 'both' ? 'both players' : 'either player'}`;
  return h('p.ev-summary', `${e.format} · ${e.rules ?? ''} · ${e.time_control ?? ''} · round ${e.rounds_paired}${planned} paired, ${e.rounds_complete} complete · ${where}`);
}

function messagesV(ctrl: ConsoleCtrl): VNode {
  const m = ctrl.model;
  return h('div.messages', { attrs: { 'aria-live': 'polite' } }, [
    m.error ? h('p.error', { attrs: { role: 'alert' } }, m.error) : null,
    m.notice
      ? h('p.notice.good', [
          m.notice.text,
          m.notice.link ? h('input.link', { attrs: { type: 'text', readonly: true, 'aria-label': 'link' }, props: { value: m.notice.link } }) : null,
          m.notice.links
            ? h(
                'ul.player-links',
                { attrs: { 'aria-label': 'the players’ links' } },
                m.notice.links.map((p) => h('li', [h('span.who', p.name), h('input.link', { attrs: { type: 'text', readonly: true, 'aria-label': `${p.name}’s link` }, props: { value: p.link } })])),
              )
            : null,
          m.notice.links
            ? h('a.print-qr', { attrs: { href: `/events/${encodeURIComponent(ctrl.id)}/print/qr?token=${encodeURIComponent(ctrl.token)}`, target: '_blank' } }, 'Print every player’s QR card')
            : null,
        ])
      : null,
  ]);
}

/** While the evening has no players: this page's link is the director's token, to keep. */
function keepLinkV(ctrl: ConsoleCtrl): VNode | null {
  const e = ctrl.model.event;
  if (!e || e.players.length > 0) return null;
  const link = absolute(`/events/${encodeURIComponent(ctrl.id)}/direct?token=${encodeURIComponent(ctrl.token)}`);
  return h('section.keep-link', { attrs: { 'aria-labelledby': 'keep-title', role: 'note' } }, [
    h('h2#keep-title', 'Keep this page’s link'),
    h('p', 'The link of this console holds your director’s token: it is the only way back to directing this evening, and whoever has it directs it. Bookmark it or copy it somewhere safe now; give it to nobody else (a deputy gets their own link below).'),
    h('div.linkrow', [
      h('input#director-link.link', { attrs: { type: 'text', readonly: true, 'aria-label': 'the director console’s link' }, props: { value: link } }),
      copyButton(link, 'copy the director console’s link'),
    ]),
    h('p', 'Next: enter the players below, one by one or as a file.'),
  ]);
}

function recordV(r: GameState | undefined): VNode {
  if (!r) return h('p.muted', 'Reading the game…');
  const moves = r.moves.map((mv, i) => `${i % 2 === 0 ? `${i / 2 + 1}.` : ''}${mv.san || mv.uci}`).join(' ');
  return h('div.record', [
    h('p.clocks', `Clocks: White ${formatClock(r.clock.white_ms)} · Black ${formatClock(r.clock.black_ms)}${r.clock.running ? ` (${r.clock.running}'s running)` : ' (stopped)'}`),
    h('p.movelist', moves ? `Moves: ${moves}` : 'No move yet.'),
    r.rulings.length ? h('ol.rulings', r.rulings.map((x) => h('li', [x.ruling, x.rule ? h('span.cite', ` (${x.rule})`) : null]))) : h('p.muted', 'No ruling yet.'),
  ]);
}

function disputesV(ctrl: ConsoleCtrl): VNode | null {
  const ds = ctrl.model.disputes;
  if (!ds.length) return null;
  return h('section.disputes', { attrs: { 'aria-labelledby': 'disputes-title' } }, [
    h('h2#disputes-title', 'Waiting for the director'),
    ...ds.map((d: Dispute) =>
      h('div.dispute', { attrs: { 'data-game': d.game, role: 'alert' } }, [
        h('h3', disputeTitle(d, ctrl.model.round, ctrl.model.event?.format)),
        h('p.what', disputeText(d)),
        recordV(ctrl.model.records[d.game]),
        h('a.button.primary.open-game', { attrs: { href: ctrl.gameLink(d.game), target: '_blank' } }, "Open the game's director console"),
      ]),
    ),
  ]);
}

function disagreementsV(ctrl: ConsoleCtrl): VNode | null {
  const e = ctrl.model.event;
  if (!e?.disagreements?.length) return null;
  const text = (r: string[] | null) => (r ? r.map(resultText).join(', ') : 'nothing');
  return h('section.disagreements', { attrs: { 'aria-labelledby': 'dis-title' } }, [
    h('h2#dis-title', 'Results the players disagree on'),
    ...e.disagreements.map((d) => {
      const board = ctrl.model.round?.round === d.round ? ctrl.model.round.boards.find((b) => b.board === d.board) : undefined;
      return h('div.disagreement', { attrs: { 'data-board': d.board, role: 'alert' } }, [
        h('p', `Round ${d.round}, board ${d.board}${board ? ` (${board.white.name} – ${board.black.name})` : ''}: White reported ${text(d.white)}, Black reported ${text(d.black)}.`),
        h(
          'div.buttons',
          (d.white?.length ?? 1) === 1
            ? ['1-0', '1/2', '0-1'].map((r) =>
                h('button.settle', { attrs: { type: 'button', 'data-result': r, disabled: ctrl.model.busy }, on: { click: () => void ctrl.act(`/rounds/${d.round}/boards/${d.board}/result`, 'POST', { result: r }) } }, `Result: ${resultText(r)}`),
              )
            : [h('span', 'Enter the result below on the board.')],
        ),
      ]);
    }),
  ]);
}

function resultEntry(ctrl: ConsoleCtrl, r: RoundView, b: BoardView): VNode {
  const sel = `res-${r.round}-${b.board}`;
  return h('form.result-entry', {
    on: {
      submit: (ev: Event) => {
        ev.preventDefault();
        const form = ev.target as HTMLFormElement;
        const chosen = Array.from(form.querySelectorAll('select')).map((s) => s.value);
        if (chosen.some((c) => !c)) {
          ctrl.dispatch({ type: 'error', error: `Choose the result of board ${b.board} first.` });
          return;
        }
        void ctrl.act(`/rounds/${r.round}/boards/${b.board}/result`, 'POST', chosen.length === 1 ? { result: chosen[0] } : { results: chosen });
      },
    },
  }, [
    ...b.results.map((res, g) =>
      h(`select#${sel}-${g}`, { attrs: { 'aria-label': `result of board ${b.board}${b.results.length > 1 ? ` game ${g + 1}` : ''}` } }, [
        h('option', { attrs: { value: '' }, props: { selected: res === null } }, 'result…'),
        // Two games a board: each game's result names who wins it (game 2 has the colours reversed).
        ...RESULTS.map((x) => h('option', { attrs: { value: x }, props: { selected: x === res } }, b.results.length > 1 ? entryOptionText(x, b, g, resultText(x)) : resultText(x))),
      ]),
    ),
    h('button.enter', { attrs: { type: 'submit', disabled: ctrl.model.busy } }, b.results.every((x) => x === null) ? 'Enter' : 'Correct'),
  ]);
}

function roundV(ctrl: ConsoleCtrl): VNode {
  const m = ctrl.model;
  const e = m.event;
  const r = m.round;
  const next = (e?.rounds_paired ?? 0) + 1;
  const allPaired = !!e?.rounds && e.rounds_paired >= e.rounds;
  const startButton = allPaired
    ? h('p.muted', `All ${e?.rounds} rounds are paired.`)
    : h('button.primary.start-round', { attrs: { type: 'button', disabled: m.busy || !e }, on: { click: () => void ctrl.act('/rounds', 'POST') } }, `Start round ${next}`);
  if (!r) return h('section.round', { attrs: { 'aria-labelledby': 'round-title' } }, [h('h2#round-title', 'Pairings'), h('p', 'No round paired yet.'), startButton]);
  return h('section.round', { attrs: { 'aria-labelledby': 'round-title' } }, [
    h('h2#round-title', `Round ${r.round}${r.complete ? ' (complete)' : ''}`),
    r.manual_by ? h('p.muted', `Paired by hand by ${r.manual_by}.`) : null,
    h('table.pairings', [
      h('thead', h('tr', [h('th', 'Board'), h('th', 'White'), h('th', 'Black'), h('th', 'Result'), h('th', 'Game'), h('th', 'Enter or correct')])),
      h(
        'tbody',
        r.boards.map((b) => {
          const games = b.games ?? (b.game ? [b.game] : []);
          const reported = b.reported ? ` (reported: W ${b.reported.white?.map(resultText).join(', ') ?? '–'}, B ${b.reported.black?.map(resultText).join(', ') ?? '–'})` : '';
          return h('tr', { attrs: { 'data-board': b.board } }, [
            h('td.bno', String(b.board)),
            h('td', `${b.white.name} (${b.white.number})`),
            h('td', `${b.black.name} (${b.black.number})`),
            h('td.result', (b.results.length > 1 ? consoleMatchText(b) : b.results.map(resultText).join(' · ')) + reported),
            h('td', gameLinks(games, (g) => ctrl.gameLink(g))),
            h('td', resultEntry(ctrl, r, b)),
          ]);
        }),
      ),
    ]),
    byesLine(r, e?.players),
    startButton,
  ]);
}

function playerStatus(p: EveningPlayer): string {
  const byes = Object.entries(p.byes ?? {}).map(([r, kind]) => `, ${kind} bye in round ${r}`).join('');
  if (p.withdrawn_from) return `withdrawn from round ${p.withdrawn_from}${byes}`;
  if (p.paused) return `paused${byes}`;
  return `${p.checked_in ? 'checked in' : 'not checked in'}${byes}`;
}

function playersV(ctrl: ConsoleCtrl): VNode {
  const e = ctrl.model.event;
  const players = e?.players ?? [];
  const act = (p: EveningPlayer, action: PlayerAction, label: string, body?: unknown) =>
    h(`button.${action}`, { attrs: { type: 'button', disabled: ctrl.model.busy, 'aria-label': `${label}: ${p.name}` }, on: { click: () => void ctrl.act(playerAction(p.number, action), 'POST', body) } }, label);
  return h('section.players', { attrs: { 'aria-labelledby': 'players-title' } }, [
    // Who will be paired: checked in, not withdrawn (a withdrawn player keeps their check-in).
    h('h2#players-title', `Players (${players.filter((p) => p.checked_in && !p.withdrawn_from).length} of ${players.length} checked in)`),
    h('table.players', [
      h('thead', h('tr', [h('th', 'No.'), h('th', 'Name'), h('th', 'Rating'), h('th', 'Status'), h('th', 'Actions')])),
      h(
        'tbody',
        players.map((p) =>
          h('tr', { attrs: { 'data-player': p.number }, class: { in: p.checked_in, out: !p.checked_in } }, [
            h('td', String(p.number)),
            h('td.name', p.name),
            h('td', p.rating ? String(p.rating) : '–'),
            h('td.status', playerStatus(p)),
            h('td.actions', [
              p.checked_in ? act(p, 'check-out', 'Check out') : act(p, 'check-in', 'Check in'),
              p.paused ? act(p, 'resume', 'Resume') : act(p, 'pause', 'Pause'),
              p.withdrawn_from ? act(p, 'reinstate', 'Reinstate') : act(p, 'withdraw', 'Withdraw'),
              e ? consoleByesV(e, p, { busy: ctrl.model.busy, book: (round, kind) => void ctrl.act(playerAction(p.number, 'bye'), 'POST', { round, kind }), cancel: (round) => void ctrl.act(playerAction(p.number, 'cancel-bye'), 'POST', { round }) }) : null,
              ...ctrl.editor.buttons(ctrl, p),
            ]),
          ]),
        ),
      ),
    ]),
    ctrl.editor.view(ctrl),
    h(
      'form.add-player',
      {
        on: {
          submit: (ev: Event) => {
            ev.preventDefault();
            const form = ev.target as HTMLFormElement;
            const name = (form.elements.namedItem('name') as HTMLInputElement).value.trim();
            const rating = (form.elements.namedItem('rating') as HTMLInputElement).value.trim();
            if (!name) {
              ctrl.dispatch({ type: 'error', error: "A new player's name is missing." });
              return;
            }
            void ctrl.act<PlayersAdded>('/players?check_in=true', 'POST', rating ? { name, rating } : { name }, (a) => {
              form.reset();
              const p = a.players[0];
              ctrl.dispatch({ type: 'notice', notice: { text: `${p.name} is entered and checked in. Their personal link (give it to them), shown here until your next action; their QR card shows it again at any time:`, links: [{ name: p.name, link: absolute(p.link) }] } });
            });
          },
        },
      },
      [
        h('label', { attrs: { for: 'newname' } }, 'Add a player'),
        h('input#newname', { attrs: { name: 'name', placeholder: 'name', maxlength: 80 } }),
        h('input#newrating', { attrs: { name: 'rating', placeholder: 'rating', inputmode: 'numeric', 'aria-label': 'rating (optional)' } }),
        h('button', { attrs: { type: 'submit', disabled: ctrl.model.busy } }, 'Add'),
      ],
    ),
    uploadV(ctrl),
  ]);
}

/** Players from a file: a CSV with a header line (`name`, and `rating`, `federation`, `fide_id`, `uscf_id` as wanted) or a TRF. */
function uploadV(ctrl: ConsoleCtrl): VNode {
  return h(
    'form.upload-players',
    {
      on: {
        submit: (ev: Event) => {
          ev.preventDefault();
          const form = ev.target as HTMLFormElement;
          const file = (form.elements.namedItem('players') as HTMLInputElement).files?.[0];
          const checkIn = (form.elements.namedItem('checkin') as HTMLInputElement).checked;
          if (!file) {
            ctrl.dispatch({ type: 'error', error: 'Choose a CSV or TRF file of players first.' });
            return;
          }
          void ctrl.upload(file, checkIn, () => form.reset());
        },
      },
    },
    [
      h('label', { attrs: { for: 'players-file' } }, 'Players from a file'),
      h('input#players-file', { attrs: { type: 'file', name: 'players', accept: '.csv,.trf,.txt,text/csv,text/plain', 'aria-describedby': 'players-file-help' } }),
      h('label.check', [h('input#upload-checkin', { attrs: { type: 'checkbox', name: 'checkin' } }), ' check them in']),
      h('button.upload', { attrs: { type: 'submit', disabled: ctrl.model.busy } }, 'Enter the players'),
      h(
        'small#players-file-help',
        'CSV: a header line with a name column, and rating, federation, fide_id, uscf_id if you have them, in any order (a spreadsheet saved as CSV); or a TRF file. All or none: a bad line enters nobody and is named.',
      ),
    ],
  );
}

function standingsV(ctrl: ConsoleCtrl): VNode | null {
  const st = ctrl.model.standings;
  if (!st || !st.rows.length || st.after_round === 0) return null;
  return h('section.standings', { attrs: { 'aria-labelledby': 'st-title' } }, [
    h('h2#st-title', `Standings after round ${st.after_round}`),
    standingsTable(st),
  ]);
}

/** A change of the log in words, players by name (the log names them by pairing number). */
function changeText(l: LogEntryView, players: EveningPlayer[]): string {
  const c = l.change as Record<string, unknown>;
  const kind = String(c.change ?? '');
  const where = c.round !== undefined ? ` round ${c.round}${c.board !== undefined ? ` board ${c.board}` : ''}${c.game !== undefined ? ` game ${c.game}` : ''}` : '';
  const results = Array.isArray(c.results) ? ` ${(c.results as string[]).map(resultText).join(', ')}` : c.result ? ` ${resultText(String(c.result))}` : '';
  let player = '';
  if (typeof c.player === 'number') player = ` ${players.find((p) => p.number === c.player)?.name ?? `player ${c.player}`}`;
  else if (c.player && typeof c.player === 'object') player = ` ${String((c.player as { name?: string }).name ?? '')}`;
  return `${kind.replace(/-/g, ' ')}${player}${where}${results}`;
}

/** What a result change replaced (the log keeps it), in words; nothing for other changes. */
function beforeText(l: LogEntryView): string | null {
  if (!Array.isArray(l.before)) return null;
  const parts = (l.before as Record<string, Record<string, unknown> | undefined>[])
    // Externally tagged: `{"results": {"round", "board", "results": [...]}}`, `{"player": {...}}`, ...
    .map((b) => b.results?.results)
    .filter((r): r is string[] => Array.isArray(r))
    .map((r) => (r.every((x) => x === 'pending') ? 'no result yet' : r.map(resultText).join(', ')));
  return parts.length ? `replaced ${parts.join('; ')}` : null;
}

function logV(ctrl: ConsoleCtrl): VNode {
  const log = ctrl.model.log;
  return h('section.log', { attrs: { 'aria-labelledby': 'log-title' } }, [
    h('h2#log-title', 'Changes and corrections'),
    log === null
      ? h('button.show-log', { attrs: { type: 'button' }, on: { click: () => void ctrl.showLog() } }, 'Show the log')
      : h(
          'ol.changes',
          { attrs: { reversed: true } },
          [...log].reverse().map((l) =>
            h('li', { attrs: { 'data-seq': l.seq } }, [
              h('time', new Date(l.at).toLocaleTimeString()),
              ` ${l.by}: ${changeText(l, ctrl.model.event?.players ?? [])}`,
              beforeText(l) ? h('span.before', ` (${beforeText(l)})`) : null,
            ]),
          ),
        ),
  ]);
}

function toolsV(ctrl: ConsoleCtrl): VNode {
  // Every link, print and file is in the "Print, show and save" menu; this section keeps
  // only what the menu does not: a deputy's link.
  return h('section.tools', { attrs: { 'aria-labelledby': 'tools-title' } }, [
    h('h2#tools-title', 'Deputies'),
    h('p', 'A deputy directs the evening and its games from a console of their own.'),
    h(
      'button.deputy',
      {
        attrs: { type: 'button', disabled: ctrl.model.busy },
        on: {
          click: () =>
            void ctrl.act<DeputyCreated>('/deputy', 'POST', undefined, (a) =>
              ctrl.dispatch({ type: 'notice', notice: { text: "A deputy's console link (it directs the evening and its games). It is shown only here, once: the server keeps no copy it could show again, so copy it now; if it is lost, make another deputy's link. ", link: absolute(`/events/${encodeURIComponent(ctrl.id)}/direct?token=${a.deputy_token}`) } }),
            ),
        },
      },
      "Make a deputy's link",
    ),
  ]);
}

export function mountEventConsole(root: HTMLElement, id: string, token: string | null): () => void {
  const patch = init([classModule, propsModule, attributesModule, eventListenersModule]);
  const mountPoint = document.createElement('div');
  root.replaceChildren(mountPoint);
  let vnode: VNode | HTMLElement = mountPoint;
  if (!token) {
    vnode = patch(vnode, h('div#app', [h('main.event-console', [h('h1', 'Director console'), h('p.error', { attrs: { role: 'alert' } }, "This link has no director's token: open the director link you were given when the event was created.")])]));
    return () => {};
  }
  const ctrl: ConsoleCtrl = new ConsoleCtrl(id, token, () => render());
  let remembered = '';
  const render = (): void => {
    const e = ctrl.model.event;
    if (e) document.title = `flagfall · ${e.name} · director`;
    // This browser remembers the evening: /direct/ lists it again.
    if (e && e.name !== remembered) {
      remembered = e.name;
      rememberEvening(id, token, e.name);
    }
    vnode = patch(
      vnode,
      h('div#app', [
        headerV(ctrl),
        h('main.event-console', [
          e ? summaryV(e) : h('p', 'Reading the event…'),
          menuV(ctrl),
          keepLinkV(ctrl),
          messagesV(ctrl),
          repairNoticeV(ctrl.rounds),
          disputesV(ctrl),
          disagreementsV(ctrl),
          roundPickerV(ctrl.rounds),
          ctrl.rounds.showsPast() ? pastRoundV(ctrl.rounds) : roundV(ctrl),
          latestToolsV(ctrl.rounds),
          playersV(ctrl),
          standingsV(ctrl),
          ctrl.details.view(ctrl),
          logV(ctrl),
          toolsV(ctrl),
          broadcastV(ctrl.id),
        ]),
      ]),
    );
  };
  // The token is checked at once: a wrong one says so before anything is clicked.
  void eventApi(id, '/log', token).catch((e: Error) => ctrl.dispatch({ type: 'error', error: `This director link does not work: ${e.message}` }));
  ctrl.start();
  render();
  return () => ctrl.stop();
}
