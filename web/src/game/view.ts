// The game page's views: small functions from the controller's model to snabbdom vnodes,
// one per part (header, clocks, board, actions, move list, rulings). They read the model
// and call the controller; they never change the model themselves.
import { Chessground } from 'chessground';
import type { Key } from 'chessground/types';
import { h, type VNode } from 'snabbdom';
import { citeV } from '../vcite';
import { elapsed, formatClock, spokenClock } from '../clock';
import { allowedClaims, calledText, canCallDirector, checkColor, fenAfter, lastMoveSquares, moveRows, resultText, rulingText, shownRulings } from '../model';
import { CLAIM_KEYS, CLAIM_LABELS, colorName, other, REASON_TEXT, type Color, type GameState } from '../protocol';
import { isMuted, soundBlocked } from '../sound';
import type { GameCtrl } from './ctrl';
import { eveningAfterV, eveningBar } from './evening';

const inputValue = (id: string): string => (document.getElementById(id) as HTMLInputElement | null)?.value ?? '';
const clearInput = (id: string): void => {
  const el = document.getElementById(id) as HTMLInputElement | null;
  if (el) el.value = '';
};

export function view(ctrl: GameCtrl): VNode {
  const s = ctrl.model.state;
  const c = ctrl.me();
  return h('div#app', [
    header(ctrl),
    h('main.game', { class: { 'is-offline': ctrl.conn !== 'online', spectator: !c } }, s ? [boardCol(ctrl, s), side(ctrl, s)] : [h('p', 'Connecting to the game…')]),
  ]);
}

function header(ctrl: GameCtrl): VNode {
  const s = ctrl.model.state;
  const c = ctrl.me();
  const conn =
    ctrl.conn === 'online' ? 'connected' : ctrl.conn === 'connecting' ? 'connecting…' : ctrl.conn === 'offline' ? 'offline, reconnecting…' : `offline${ctrl.connDetail ? ': ' + ctrl.connDetail : ''}`;
  const title = s
    ? `${s.setup.rules} · ${s.setup.time_control} · ${s.mode === 'online' ? 'online' : 'over the board'}${c ? ` · you play ${c}` : ctrl.model.role === 'spectator' ? ' · watching' : ''}`
    : '';
  const muted = isMuted();
  return h('header.top', [
    h('a.brand', { attrs: { href: '/' } }, 'flagfall'),
    h('span.game-title', title),
    h(`span.conn.${ctrl.conn === 'online' ? 'connected' : ctrl.conn}`, { attrs: { role: 'status', 'aria-live': 'polite' } }, conn),
    // Always in the layout (hidden once sound runs): the board must not move under a finger.
    h('span.soundhint', { class: { off: muted || !soundBlocked() } }, 'Sound starts after your first click'),
    h(
      'button.mute',
      { attrs: { type: 'button', 'aria-pressed': String(muted), 'aria-label': muted ? 'sound is off; turn it on' : 'sound is on; mute' }, on: { click: () => ctrl.toggleMute() } },
      muted ? 'Sound: off' : 'Sound: on',
    ),
  ]);
}

/** The colour shown at the bottom of the board. */
function bottomColor(ctrl: GameCtrl): Color {
  const base = ctrl.me() ?? 'white';
  return ctrl.model.ui.flipped ? other(base) : base;
}

function clockV(ctrl: GameCtrl, s: GameState, color: Color, pos: 'top' | 'bottom'): VNode {
  const ms = ctrl.clock.remaining(color, performance.now());
  const running = ctrl.clock.running === color && s.result === '*';
  const down = ms <= 0 || s.flags.includes(color);
  const name = (color === 'white' ? s.setup.white : s.setup.black) || colorName(color);
  return h(
    `div.clock.${pos}`,
    {
      class: { running, low: ms > 0 && ms < 10_000, down },
      attrs: { role: 'timer', 'aria-label': `${name} clock: ${spokenClock(ms)}${running ? ', running' : ''}` },
    },
    [
      h('span.who', [h(`span.dot.${color}`, { attrs: { 'aria-hidden': 'true' } }), name]),
      h('span.time', { attrs: { 'aria-hidden': 'true' } }, formatClock(ms)),
      down ? h('span.flag', { attrs: { title: 'flag down', 'aria-hidden': 'true' } }, '⚑') : null,
    ],
  );
}

function boardCol(ctrl: GameCtrl, s: GameState): VNode {
  const bottom = bottomColor(ctrl);
  return h('section.board-col', [
    clockV(ctrl, s, other(bottom), 'top'),
    h('div.board-wrap', [boardV(ctrl, s, bottom), promotionV(ctrl, bottom)]),
    clockV(ctrl, s, bottom, 'bottom'),
    h('div.boardtools', [h('button.flip', { attrs: { type: 'button', 'aria-keyshortcuts': 'x', title: 'Flip the board (x)' }, on: { click: () => ctrl.flip() } }, 'Flip board')]),
  ]);
}

/** The board's settings from the model, and a key that changes whenever they do. */
function boardConfig(ctrl: GameCtrl, s: GameState, bottom: Color) {
  const c = ctrl.me();
  const online = s.mode === 'online';
  const viewing = ctrl.model.ui.viewPly;
  const live = viewing === null;
  // Whether the player may move now is the server's to say (`actions`); premoves are
  // made while the opponent is on move, so online the board stays movable meanwhile.
  const may = ctrl.may();
  const mayMove = !!c && live && s.result === '*' && !!may && (may.move || (online && s.to_move !== c && !s.pending && !s.called));
  const dests = new Map<Key, Key[]>();
  if (online && s.dests && s.to_move === c) for (const [from, tos] of Object.entries(s.dests)) dests.set(from as Key, tos as Key[]);
  const lm = live ? lastMoveSquares(s) : viewing > 0 ? [s.moves[viewing - 1].uci.slice(0, 2), s.moves[viewing - 1].uci.slice(2, 4)] : null;
  const config = {
    fen: (live ? s.fen : fenAfter(s, viewing)).split(' ')[0],
    orientation: bottom,
    turnColor: s.to_move,
    lastMove: lm ? (lm as Key[]) : undefined,
    check: live ? (checkColor(s) ?? false) : false,
    viewOnly: !c || !live,
    movable: online
      ? { free: false, color: mayMove ? c! : undefined, dests, showDests: true }
      : { free: true, color: mayMove ? c! : undefined, dests: undefined, showDests: false },
    premovable: { enabled: online && mayMove },
  };
  const key = JSON.stringify([config.fen, bottom, s.to_move, lm, config.check, config.viewOnly, config.movable.color, online ? s.dests : null, ctrl.model.ui.refusals, s.n, mayMove]);
  return { config, key };
}

function boardV(ctrl: GameCtrl, s: GameState, bottom: Color): VNode {
  const { config, key } = boardConfig(ctrl, s, bottom);
  return h('div.board', {
    key: 'board',
    attrs: { 'aria-label': 'chess board', 'data-orientation': bottom },
    hook: {
      insert: (vnode) => {
        const el = vnode.elm as HTMLElement & { _cgKey?: string };
        ctrl.cg = Chessground(el, {
          ...config,
          coordinates: true,
          autoCastle: false,
          animation: { enabled: true, duration: 120 },
          draggable: { enabled: true, showGhost: true },
          highlight: { lastMove: true, check: true },
          movable: { ...config.movable, events: { after: (orig, dest, meta) => ctrl.boardMove(orig, dest, !!meta.premove) } },
        });
        el._cgKey = key;
      },
      postpatch: (_old, vnode) => {
        const el = vnode.elm as HTMLElement & { _cgKey?: string };
        // The page around the board may have moved it (a notice, the header wrapping):
        // chessground must measure it again, or a click lands on the wrong square.
        ctrl.cg?.state.dom.bounds.clear();
        if (el._cgKey === key || !ctrl.cg) return;
        el._cgKey = key;
        if (!config.premovable.enabled) ctrl.cg.cancelPremove();
        ctrl.cg.set(config);
      },
    },
  });
}

const PROMO: [string, string, string][] = [
  ['q', 'queen', 'Queen'],
  ['r', 'rook', 'Rook'],
  ['b', 'bishop', 'Bishop'],
  ['n', 'knight', 'Knight'],
];

function promotionV(ctrl: GameCtrl, color: Color): VNode | null {
  const p = ctrl.model.ui.promotion;
  const s = ctrl.model.state;
  if (!p || !s) return null;
  const mine = ctrl.me() ?? color;
  return h('div.promo.cg-wrap', { attrs: { role: 'dialog', 'aria-label': 'choose the promotion piece' } }, [
    h('p', 'Promote to'),
    ...PROMO.map(([l, role, name]) =>
      h('button.promo-piece', { attrs: { type: 'button', 'data-promo': l, 'aria-label': name, title: name }, on: { click: () => ctrl.promote(l) } }, [h(`piece.${role}.${mine}`)]),
    ),
    s.mode === 'otb' ? h('button', { attrs: { type: 'button', 'data-promo': '' }, on: { click: () => ctrl.promote('') } }, 'Leave a pawn') : null,
    h('button.cancel', { attrs: { type: 'button' }, on: { click: () => ctrl.promote(null) } }, 'Cancel'),
  ]);
}

function side(ctrl: GameCtrl, s: GameState): VNode {
  const rt = resultText(s);
  const n = ctrl.model.notice;
  const ct = calledText(s);
  const p = s.pending;
  return h('section.side', [
    eveningBar(ctrl),
    rt ? h('div.banner', { attrs: { role: 'status' } }, [h('strong', rt), s.reason ? ` by ${REASON_TEXT[s.reason] ?? s.reason}` : '', s.rule ? ' · ' : '', citeV(s.rule)]) : null,
    n ? h(`div.notice.${n.tone}`, { attrs: { role: 'status', 'aria-live': 'assertive' } }, [n.text, n.rule ? ' · ' : '', citeV(n.rule)]) : null,
    ct ? h('div.called', { attrs: { role: 'status' } }, ct) : null,
    p ? h('div.pending', `Waiting for the director: ${colorName(p.claimant)}'s ${p.claim.replace('_', ' ')} claim. The clock is stopped.`) : null,
    // After the end there is nothing left to do at the board but a rematch (an evening's
    // game: its next game, or back to the evening).
    ctrl.me() && s.result === '*' && s.reason === null ? controls(ctrl, s, ctrl.me()!) : null,
    ctrl.me() && ctrl.over() ? (ctrl.evening ? eveningAfterV(ctrl, ctrl.evening) : rematchV(ctrl, ctrl.me()!)) : null,
    h('h2', 'Moves'),
    movesV(ctrl, s),
    h('h2', 'Rulings'),
    rulingsV(s),
    h('p', h('a.pgn', { attrs: { download: `${ctrl.opts.id}.pgn`, href: `/api/games/${encodeURIComponent(ctrl.opts.id)}/pgn` } }, 'Download PGN')),
    h('details.keys', [
      h('summary', 'Keyboard'),
      h(
        'p',
        s.mode === 'online'
          ? 'Enter or / type a move · ← → step through the moves · End back to the game · x flip · f flag · t threefold · y fifty · d offer draw · a accept · n decline · r resign · c call the director · m mute'
          : 'Space press · Backspace take back · Enter or / type a move · ← → step through the moves · End back to the game · x flip · i illegal · f flag · b both flags · t threefold · y fifty · l ILC · w drawn position · d offer draw · a accept · n decline · r resign · c call the director (stops the clock) · m mute',
      ),
    ]),
  ]);
}

function controls(ctrl: GameCtrl, s: GameState, c: Color): VNode {
  const over = s.result !== '*';
  const online = s.mode === 'online';
  const myBoardMove = !!s.board_move && s.board_move.by === c;
  const claims = allowedClaims(s, c);
  const may = s.actions[c];
  const submitMove = (ev: Event) => {
    ev.preventDefault();
    if (ctrl.typedMove(inputValue('moveinput'))) clearInput('moveinput');
  };
  return h('section.controls', { attrs: { 'aria-label': 'your actions' } }, [
    online
      ? null
      : h('div.pressrow', [
          h(
            'button.press',
            { class: { ready: myBoardMove }, attrs: { type: 'button', 'aria-keyshortcuts': 'Space', disabled: !may.press || ctrl.pressHeld() }, on: { click: () => ctrl.press() } },
            'Press clock',
          ),
          may.take_back ? h('button.takeback', { attrs: { type: 'button', 'aria-keyshortcuts': 'Backspace' }, on: { click: () => ctrl.takeBack() } }, 'Take back') : null,
        ]),
    !may.move_and_press
      ? null
      : h('label.autopress', [
          h('input#autopress', { attrs: { type: 'checkbox' }, props: { checked: ctrl.autoPress }, on: { change: (ev: Event) => ctrl.setAutoPress((ev.target as HTMLInputElement).checked) } }),
          ' Move and press as one action',
        ]),
    h('form.moveform', { on: { submit: submitMove } }, [
      h('label', { attrs: { for: 'moveinput' } }, 'Move'),
      h('input#moveinput', {
        attrs: {
          type: 'text',
          autocomplete: 'off',
          spellcheck: 'false',
          placeholder: 'Nf3, O-O or g1f3',
          'aria-label': 'type a move as written (Nf3, O-O, exd5) or in squares (g1f3), then Enter',
          disabled: over,
        },
      }),
      h('button', { attrs: { type: 'submit', disabled: over || ctrl.typed.id !== null } }, 'Play'),
    ]),
    typedV(ctrl, myBoardMove),
    h(
      'div.claims',
      { attrs: { role: 'group', 'aria-label': 'claims' } },
      claims.map((k) =>
        h(
          `button.claim.claim-${k}`,
          { key: k, attrs: { type: 'button', 'data-claim': k, 'aria-keyshortcuts': CLAIM_KEYS[k] ?? '' }, on: { click: () => ctrl.claim(k, inputValue('moveinput')) && clearInput('moveinput') } },
          CLAIM_LABELS[k] ?? `Claim ${k}`,
        ),
      ),
    ),
    over ? null : offers(ctrl, s, c),
    s.setup.director === false
      ? null
      : h('div.callrow', [
          h(
            'button.call-director',
            {
              attrs: { type: 'button', 'aria-keyshortcuts': 'c', disabled: !canCallDirector(s, c) },
              on: {
                click: () => {
                  ctrl.callDirector(inputValue('callreason'));
                  clearInput('callreason');
                },
              },
            },
            'Call director',
          ),
          h('input#callreason', {
            attrs: { type: 'text', maxlength: 200, autocomplete: 'off', placeholder: 'why (optional)', 'aria-label': 'why you call the director (optional)', disabled: !canCallDirector(s, c) },
            on: {
              keydown: (ev: KeyboardEvent) => {
                if (ev.key !== 'Enter') return;
                ev.preventDefault();
                ctrl.callDirector(inputValue('callreason'));
                clearInput('callreason');
              },
            },
          }),
        ]),
  ]);
}

/** The rematch after the game: offer it, or answer the opponent's offer. */
function rematchV(ctrl: GameCtrl, c: Color): VNode {
  const r = ctrl.model.ui.rematch;
  const mine = r?.by === c;
  const btn = (cls: string, text: string, action: 'offer' | 'accept' | 'decline') =>
    h(`button.${cls}`, { attrs: { type: 'button' }, on: { click: () => void ctrl.rematch(action) } }, text);
  let body: (VNode | string)[];
  if (!r || r.status === 'none') body = [btn('rematch-offer.primary', 'Offer a rematch', 'offer')];
  else if (r.status === 'offered' && mine) body = [h('span.rematch-wait', 'Rematch offered; waiting for your opponent…')];
  else if (r.status === 'offered') body = [h('span', 'Your opponent offers a rematch (colours swapped).'), ' ', btn('rematch-accept.primary', 'Accept rematch', 'accept'), ' ', btn('rematch-decline', 'Decline', 'decline')];
  else if (r.status === 'declined' && mine) body = [h('span.rematch-declined', 'Your opponent declined the rematch.'), ' ', btn('rematch-offer', 'Offer again', 'offer')];
  else if (r.status === 'declined') body = [h('span', 'You declined the rematch.'), ' ', btn('rematch-offer', 'Offer one yourself', 'offer')];
  else body = [h('span', 'Rematch accepted: opening the new game…')];
  return h('section.rematch', { attrs: { 'aria-label': 'rematch', role: 'group' } }, body);
}

/** The typed move's fate: on its way, or refused (with why, and that the clock waits for a move on the board). */
function typedV(ctrl: GameCtrl, myBoardMove: boolean): VNode | null {
  if (myBoardMove) return null;
  if (ctrl.typed.id) return h('p.typed-wait', { attrs: { role: 'status' } }, 'Reading your move…');
  if (!ctrl.typed.refused) return null;
  const online = ctrl.online();
  return h('p.typed-refused', { attrs: { role: 'alert' } }, [
    h('strong', 'Move not played: '),
    ctrl.typed.refused,
    online ? '' : '. No move of yours is on the board: the clock can be pressed once you make one (type it again or move the piece).',
  ]);
}

/** The player who offers a draw to `c` (the opponent), by name when the game has one. */
function offererName(s: GameState, c: Color): string {
  const them: Color = c === 'white' ? 'black' : 'white';
  const name = them === 'white' ? s.setup.white : s.setup.black;
  return name ? `${name} (${them})` : them === 'white' ? 'White' : 'Black';
}

function offers(ctrl: GameCtrl, s: GameState, c: Color): VNode {
  const confirm = ctrl.model.ui.confirmResign;
  const may = s.actions[c];
  return h('div.offers', { attrs: { role: 'group', 'aria-label': 'draw offers and resignation' } }, [
    // Who offers, in words, before the two buttons that answer it.
    may.answer_draw ? h('span.offer-from', { attrs: { role: 'status' } }, `${offererName(s, c)} offers a draw:`) : null,
    may.answer_draw
      ? h('button.accept', { attrs: { type: 'button', 'aria-keyshortcuts': 'a' }, on: { click: () => ctrl.send({ accept: 'draw' }) } }, 'Accept draw')
      : null,
    may.answer_draw
      ? h('button.decline', { attrs: { type: 'button', 'aria-keyshortcuts': 'n' }, on: { click: () => ctrl.send({ decline: 'draw' }) } }, 'Decline draw')
      : null,
    may.offer_draw ? h('button.offer', { attrs: { type: 'button', 'aria-keyshortcuts': 'd' }, on: { click: () => ctrl.send({ offer: 'draw' }) } }, 'Offer draw') : null,
    s.draw_offer === c ? h('span.offered', 'Draw offered') : null,
    may.resign ? h('button.resign', { class: { confirm }, attrs: { type: 'button', 'aria-keyshortcuts': 'r' }, on: { click: () => ctrl.resign() } }, confirm ? 'Really resign?' : 'Resign') : null,
  ]);
}

function movesV(ctrl: GameCtrl, s: GameState): VNode {
  const rows = moveRows(s);
  const viewing = ctrl.model.ui.viewPly;
  const current = viewing ?? s.moves.length;
  const cell = (m: { text: string; index: number } | undefined, cls: string) =>
    m
      ? h(
          `button.mv.${cls}`,
          { class: { active: m.index + 1 === current }, attrs: { type: 'button', 'data-ply': m.index + 1 }, on: { click: () => ctrl.view(m.index + 1) } },
          m.text,
        )
      : h(`span.mv.${cls}`, cls === 'w' ? '…' : '');
  return h('div.movebox', [
    h('div.movenav', { attrs: { role: 'group', 'aria-label': 'step through the moves' } }, [
      h('button.first', { attrs: { type: 'button', title: 'Start (Home)', disabled: current === 0 }, on: { click: () => ctrl.view(0) } }, '«'),
      h('button.prev', { attrs: { type: 'button', title: 'Back (←)', disabled: current === 0 }, on: { click: () => ctrl.step(-1) } }, '‹'),
      h('button.next', { attrs: { type: 'button', title: 'Forward (→)', disabled: viewing === null }, on: { click: () => ctrl.step(1) } }, '›'),
      h('button.last', { attrs: { type: 'button', title: 'Back to the game (End)', disabled: viewing === null }, on: { click: () => ctrl.view(null) } }, '»'),
      viewing !== null
        ? h('span.replaying', { attrs: { role: 'status' } }, [
            `Move ${viewing} of ${s.moves.length} `,
            h('button.live', { attrs: { type: 'button', 'aria-keyshortcuts': 'End' }, on: { click: () => ctrl.view(null) } }, 'Back to the game (End)'),
          ])
        : null,
    ]),
    h(
      'ol.moves',
      {
        attrs: { 'aria-label': 'moves' },
        hook: {
          postpatch: (_o, v) => {
            const el = v.elm as HTMLElement;
            if (viewing === null) el.scrollTop = el.scrollHeight;
          },
        },
      },
      rows.map((r) => h('li', { key: r.no, attrs: { value: r.no } }, [cell(r.white, 'w'), ' ', cell(r.black, 'b')])),
    ),
  ]);
}

function rulingsV(s: GameState): VNode {
  const list = shownRulings(s);
  return h(
    'ul.rulings',
    {
      attrs: { 'aria-label': 'rulings' },
      hook: {
        postpatch: (o, v) => {
          const el = v.elm as HTMLElement;
          if ((o.children?.length ?? 0) !== (v.children?.length ?? 0)) el.scrollTop = el.scrollHeight;
        },
      },
    },
    list.map((r, i) =>
      h(`li.ruling.${r.kind}`, { key: i }, [h('span.at', { attrs: { title: 'game time' } }, elapsed(r.at)), ' ', h('span.text', rulingText(r.ruling)), ' ', citeV(r.rule)]),
    ),
  );
}
