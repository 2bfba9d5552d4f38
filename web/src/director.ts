// The director console (`/direct/{id}?token=`, `/direct/`): every live game whose director
// link this browser holds, as a small board with clocks, pending claims and the director's
// actions. Director tokens are per game; the console remembers them in localStorage.
// A finished game's rematch is directed with the same token: once the players agree on
// one, the console adds the new game (docs/protocol.md, "Rematch").
// As the game page: a controller per game owning its model (changed only by the reducer
// of model.ts), snabbdom views, one render per animation frame for the whole console.
import { Chessground } from 'chessground';
import type { Api as CgApi } from 'chessground/api';
import type { Key } from 'chessground/types';
import { attributesModule, classModule, eventListenersModule, h, init, propsModule, type VNode } from 'snabbdom';
import { getRematch, wsUrl } from './api';
import { formatClock, LiveClock, spokenClock } from './clock';
import { browserSocket, Connection, type ConnStatus } from './connection';
import { calledText, initialModel, lastMoveSquares, reduce, resultText, rulingText, type Model } from './model';
import { rememberedView } from './event/remember';
import { directorGames, forgetDirectorGame, pendingRule, pendingText, rememberDirectorGame } from './ladder';
import { colorName, REASON_TEXT, type Color, type DirectorActions, type OffenceOption } from './protocol';
import { citeV } from './vcite';

/** One game on the console: its connection, its model and the director's form state. */
export class CardCtrl {
  model: Model = initialModel('director');
  readonly clock = new LiveClock();
  conn: ConnStatus = 'connecting';
  connDetail = '';
  offPlayer: Color = 'white';
  offKind = 'two_hands';
  result = '1-0';
  gone = false;
  cg: CgApi | null = null;
  /** The new game of this game's rematch, once the players accepted one. */
  rematch: string | null = null;
  private rematchTimer: ReturnType<typeof setInterval> | null = null;
  private readonly connection: Connection;

  constructor(
    readonly id: string,
    readonly token: string,
    private readonly redraw: () => void,
    private readonly onRematch: (id: string, token: string) => void = () => {},
  ) {
    this.connection = new Connection({
      url: wsUrl(id, token),
      open: browserSocket,
      onMessage: (msg) => {
        this.model = reduce(this.model, msg);
        const s = this.model.state;
        if (s && (msg.type === 'state' || msg.type === 'event')) this.clock.update(s.clock, performance.now());
        if (s && (s.result !== '*' || s.reason) && !this.rematchTimer && !this.rematch) this.watchRematch();
        this.redraw();
      },
      onStatus: (st, d) => {
        this.conn = st;
        this.connDetail = d ?? '';
        this.redraw();
      },
    });
  }

  start(): void {
    this.connection.start();
  }

  stop(): void {
    this.connection.stop();
    this.cg?.destroy();
    if (this.rematchTimer) clearInterval(this.rematchTimer);
  }

  /** After the game: ask every 3 s, for half an hour, whether the players agreed on a
   * rematch; its game joins the console, directed with the same token. */
  private watchRematch(): void {
    const until = Date.now() + 30 * 60_000;
    const poll = async (): Promise<void> => {
      if (Date.now() > until) {
        if (this.rematchTimer) clearInterval(this.rematchTimer);
        return;
      }
      try {
        const v = await getRematch(this.id, this.token);
        if (v.status === 'accepted' && v.game && !this.rematch) {
          this.rematch = v.game.id;
          if (this.rematchTimer) clearInterval(this.rematchTimer);
          this.onRematch(v.game.id, this.token);
          this.redraw();
        }
      } catch {
        /* asked again at the next tick */
      }
    };
    this.rematchTimer = setInterval(() => void poll(), 3000);
    void poll();
  }

  send(a: Record<string, unknown>): void {
    this.connection.send(a);
  }

  /** A player's name as the console shows it: the setup's name with the colour, else the colour. */
  nameOf(c: Color): string {
    const s = this.model.state;
    const n = c === 'white' ? s?.setup.white : s?.setup.black;
    return n ? `${n} (${c})` : colorName(c);
  }

  /** What the server says the director may do now. */
  may(): DirectorActions | null {
    return this.model.state?.actions.director ?? null;
  }

  /** The offence chosen in the form, with the ladder's next penalty the server sends. */
  offence(): OffenceOption | null {
    return this.may()?.offences?.find((o) => o.kind === this.offKind) ?? null;
  }

  /** The next penalty of the chosen offence for the chosen player, in words, and its rule. */
  preview(): { text: string; rule: string } | null {
    const next = this.offence()?.[this.offPlayer];
    if (!next) return null;
    const nth = next.recorded === 0 ? 'First offence' : `Offence no. ${next.recorded + 1}`;
    return { text: `${nth}: ${next.text}`, rule: next.rule };
  }

  setOffence(player: Color, kind: string): void {
    this.offPlayer = player;
    this.offKind = kind;
    this.redraw();
  }

  recordOffence(): void {
    const kind = this.offence()?.label ?? this.offKind;
    const penalty = this.preview()?.text;
    if (!window.confirm(`Record the offence "${kind}" against ${this.nameOf(this.offPlayer)}?${penalty ? `\n${penalty}` : ''}`)) return;
    this.send({ offence: { player: this.offPlayer, kind: this.offKind } });
  }

  declare(): void {
    const what = this.result === 'cancel' ? 'cancel the game' : `declare the result ${this.result === '1/2-1/2' ? '½-½' : this.result}`;
    if (!window.confirm(`Really ${what}? This ends the game.`)) return;
    this.send({ result: this.result === 'cancel' ? 'cancel' : { result: this.result, reason: 'director' } });
  }
}

function clockV(card: CardCtrl, c: Color): VNode {
  const s = card.model.state!;
  const ms = card.clock.remaining(c, performance.now());
  const down = ms <= 0 || s.flags.includes(c);
  const running = card.clock.running === c && s.result === '*';
  const name = (c === 'white' ? s.setup.white : s.setup.black) || colorName(c);
  return h('div.clock', { class: { running, down }, attrs: { role: 'timer', 'aria-label': `${name} clock: ${spokenClock(ms)}` } }, [
    h('span.who', [h(`span.dot.${c}`, { attrs: { 'aria-hidden': 'true' } }), name]),
    h('span.time', formatClock(ms)),
    down ? h('span.flag', { attrs: { 'aria-hidden': 'true' } }, '⚑') : null,
  ]);
}

function boardV(card: CardCtrl): VNode {
  const s = card.model.state!;
  const lm = lastMoveSquares(s);
  const config = { fen: s.fen.split(' ')[0], lastMove: lm ? (lm as Key[]) : undefined };
  const key = JSON.stringify(config);
  return h('div.board.small', {
    key: `board-${card.id}`,
    attrs: { 'aria-label': `board of game ${card.id}` },
    hook: {
      insert: (v) => {
        card.cg = Chessground(v.elm as HTMLElement, { ...config, viewOnly: true, coordinates: false, animation: { enabled: false } });
        (v.elm as HTMLElement & { _cgKey?: string })._cgKey = key;
      },
      postpatch: (_o, v) => {
        const el = v.elm as HTMLElement & { _cgKey?: string };
        if (el._cgKey === key) return;
        el._cgKey = key;
        card.cg?.set(config);
      },
      destroy: () => {
        card.cg?.destroy();
        card.cg = null;
      },
    },
  });
}

const button = (cls: string, text: string, click: () => void, label?: string, disabled = false): VNode =>
  h(`button.${cls}`, { attrs: { type: 'button', disabled, ...(label ? { 'aria-label': label } : {}) }, on: { click } }, text);

function actionsV(card: CardCtrl): VNode {
  const send = (a: Record<string, unknown>) => () => card.send(a);
  const may = card.may();
  const preview = card.preview();
  return h('div.dactions', [
    h('div.row', [
      button('stop', 'Stop clock', send({ stop_clock: true }), undefined, !may?.stop_clock),
      button('start', 'Start clock', send({ start_clock: true }), undefined, !may?.start_clock),
    ]),
    may?.add_time
      ? h(
          'div.row',
          (['white', 'black'] as Color[]).flatMap((c) => [
            button(`add-${c}`, `${colorName(c)} +1:00`, send({ add_time: { color: c, ms: 60_000 } }), `add a minute to ${c}`),
            button(`sub-${c}`, `${colorName(c)} −1:00`, send({ add_time: { color: c, ms: -60_000 } }), `take a minute from ${c}`),
          ]),
        )
      : null,
    h('div.row', [
      h(
        'select',
        { attrs: { 'aria-label': 'offender' }, props: { value: card.offPlayer }, on: { change: (ev: Event) => card.setOffence((ev.target as HTMLSelectElement).value as Color, card.offKind) } },
        (['white', 'black'] as Color[]).map((c) => h('option', { attrs: { value: c }, props: { selected: card.offPlayer === c } }, card.nameOf(c))),
      ),
      h(
        'select',
        { attrs: { 'aria-label': 'offence' }, props: { value: card.offKind }, on: { change: (ev: Event) => card.setOffence(card.offPlayer, (ev.target as HTMLSelectElement).value) } },
        (may?.offences ?? []).map((o) => h('option', { attrs: { value: o.kind }, props: { selected: card.offKind === o.kind } }, o.label)),
      ),
      button('offence-apply', 'Record offence', () => card.recordOffence(), undefined, !card.offence()),
    ]),
    h('div.row', [h('span.preview', { attrs: { 'aria-live': 'polite' } }, preview ? [preview.text, ' ', citeV(preview.rule)] : [])]),
    h('div.row', [
      h(
        'select',
        { attrs: { 'aria-label': 'result to declare' }, props: { value: card.result }, on: { change: (ev: Event) => (card.result = (ev.target as HTMLSelectElement).value) } },
        [
          ['1-0', '1-0'],
          ['0-1', '0-1'],
          ['1/2-1/2', '½-½'],
          ['cancel', 'Cancel the game (replay)'],
        ].map(([v, t]) => h('option', { attrs: { value: v }, props: { selected: card.result === v } }, t)),
      ),
      button('declare', 'Declare', () => card.declare()),
    ]),
  ]);
}

export function cardView(card: CardCtrl): VNode {
  const s = card.model.state;
  const connText = card.conn === 'online' ? 'connected' : card.conn === 'closed' ? `offline${card.connDetail ? ': ' + card.connDetail : ''}` : card.conn === 'offline' ? 'offline, reconnecting…' : 'connecting…';
  const head = h('div.dhead', [
    // Beside the clocks a player without a name is their colour: the heading says the same.
    h('h2', s ? `${s.setup.white || colorName('white')} – ${s.setup.black || colorName('black')} · ${s.setup.rules} ${s.setup.time_control}` : `Game ${card.id}`),
    h(`span.conn.${card.conn === 'online' ? 'connected' : card.conn}`, { attrs: { role: 'status' } }, connText),
  ]);
  if (!s) return h('article.dcard', { key: card.id, attrs: { 'data-game': card.id } }, [head]);
  const rt = resultText(s);
  const ct = calledText(s);
  const p = s.pending;
  const n = card.model.notice;
  const last = s.rulings[s.rulings.length - 1];
  return h('article.dcard', { key: card.id, class: { 'has-pending': !!p, 'has-call': !!ct, finished: s.result !== '*' }, attrs: { 'data-game': card.id } }, [
    head,
    h('div.dbody', [
      boardV(card),
      h('div.dinfo', [
        h('div.dclocks', [clockV(card, 'white'), clockV(card, 'black')]),
        rt ? h('p.banner', [h('strong', rt), s.reason ? ` by ${REASON_TEXT[s.reason] ?? s.reason} ` : ' ', citeV(s.rule)]) : null,
        card.rematch
          ? h('p.rematch', ['Rematch: ', h('a', { attrs: { href: `/direct/${card.rematch}?token=${card.token}` } }, `game ${card.rematch}`), ', on this console with the same link.'])
          : null,
        ct
          ? h('div.called', { attrs: { role: 'alert' } }, [
              h('p', ct),
              button('resume.primary', 'Resume clock', () => card.send({ start_clock: true })),
              button('keep-stopped', 'Keep it stopped', () => card.send({ stop_clock: true })),
            ])
          : null,
        p
          ? h('div.pending', [
              h('p', [pendingText(p), ' ', citeV(pendingRule(p))]),
              button('grant', 'Grant', () => card.send({ ruling: { grant: true } })),
              button('deny', 'Deny', () => card.send({ ruling: { grant: false } })),
            ])
          : null,
        n && n.tone === 'bad' ? h('p.notice', { attrs: { role: 'status', 'aria-live': 'polite' } }, n.text) : null,
        last ? h('p.lastruling', [rulingText(last.ruling), ' ', citeV(last.rule)]) : null,
        actionsV(card),
      ]),
    ]),
  ]);
}

const patch = init([classModule, attributesModule, propsModule, eventListenersModule]);

export function mountDirector(root: HTMLElement, id: string | null, token: string | null): () => void {
  if (id && token) rememberDirectorGame(id, token);
  const games = directorGames();
  // The game of the link first, then the others this browser directs.
  const ids = Object.keys(games).sort((a, b) => (a === id ? -1 : b === id ? 1 : 0));
  let frame = 0;
  const redraw = (): void => {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      render();
    });
  };
  // A rematch of a game on the console joins it (the same director token directs it).
  const addRematch = (gid: string, token: string): void => {
    if (cards.some((c) => c.id === gid)) return;
    rememberDirectorGame(gid, token);
    const card = new CardCtrl(gid, token, redraw, addRematch);
    cards.push(card);
    card.start();
    redraw();
  };
  const cards = ids.map((gid) => new CardCtrl(gid, games[gid], redraw, addRematch));
  const mountPoint = document.createElement('div');
  root.replaceChildren(mountPoint);
  let vnode: VNode | HTMLElement = mountPoint;
  const render = (): void => {
    const live = cards.filter((c) => !c.gone);
    // A game whose player calls the director comes to the top of the console.
    const shown = [...live.filter((c) => calledText(c.model.state)), ...live.filter((c) => !calledText(c.model.state))];
    vnode = patch(
      vnode,
      h('div#app', [
        h('header.top', [h('a.brand', { attrs: { href: '/' } }, 'flagfall'), h('span.game-title', 'Director console')]),
        h('main.director', [
          rememberedView(redraw),
          h('h2.games-title', 'Games you direct'),
          h('div.dlist', shown.length ? shown.map(cardView) : [h('p', 'No game yet: open a director link, or create a game in the lobby.')]),
        ]),
      ]),
    );
  };
  for (const card of cards) {
    void fetch(`/api/games/${encodeURIComponent(card.id)}`).then((r) => {
      if (r.status === 404) {
        forgetDirectorGame(card.id);
        card.gone = true;
        card.stop();
        redraw();
      }
    });
    card.start();
  }
  const tick = setInterval(() => {
    if (cards.some((c) => c.clock.running)) redraw();
  }, 100);
  redraw();
  return () => {
    clearInterval(tick);
    cancelAnimationFrame(frame);
    cards.forEach((c) => c.stop());
  };
}
