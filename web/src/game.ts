// The game page: a player's board (`/play/{id}?token=`) or a spectator's (`/watch/{id}`).
import { Chessground } from 'chessground';
import type { Api as CgApi } from 'chessground/api';
import type { Key } from 'chessground/types';
import { wsUrl } from './api';
import { citation } from './citation';
import { elapsed, formatClock, LiveClock, spokenClock } from './clock';
import { browserSocket, Connection, type ConnStatus } from './connection';
import { h, renderOnce } from './dom';
import { allowedClaims, calledText, canCallDirector, checkColor, initialModel, lastMoveSquares, moveRows, reduce, resultText, type Model } from './model';
import { parseMoveInput } from './moveinput';
import { boardMoveUci, CLAIM_KEYS, CLAIM_LABELS, other, REASON_TEXT, type Color, type GameState, type Role, type ServerMessage } from './protocol';
import { isMuted, play, setMuted } from './sound';

const AUTO_PRESS_KEY = 'flagfall.autopress';

export interface GamePageOptions {
  id: string;
  token: string | null;
}

function colorName(c: Color): string {
  return c === 'white' ? 'White' : 'Black';
}

/** The role the server gives this socket: its state may say so ("role"/"you"); no token is a spectator. */
function roleFrom(msg: ServerMessage, token: string | null, current: Role): Role {
  const m = msg as unknown as { role?: unknown; you?: unknown };
  const r = m.role ?? m.you;
  if (r === 'white' || r === 'black' || r === 'director' || r === 'spectator') return r;
  return token ? current : 'spectator';
}

export function mountGame(root: HTMLElement, opts: GamePageOptions): () => void {
  let model: Model = initialModel(opts.token ? 'spectator' : 'spectator');
  const clock = new LiveClock();
  let connStatus: ConnStatus = 'connecting';
  let connDetail = '';
  let autoPress = localStorage.getItem(AUTO_PRESS_KEY) === '1';
  let confirmResign = false;
  let lowTimeWarned = false;

  const statusEl = h('span', { class: 'conn', role: 'status', 'aria-live': 'polite' });
  const muteBtn = h('button', { type: 'button', class: 'mute', 'aria-pressed': String(isMuted()) });
  const header = h('header', { class: 'top' }, h('a', { href: '/', class: 'brand' }, 'flagfall'), h('span', { class: 'game-title' }), statusEl, muteBtn);

  const clockTop = h('div', { class: 'clock top', role: 'timer' });
  const clockBottom = h('div', { class: 'clock bottom', role: 'timer' });
  const boardEl = h('div', { class: 'board', 'aria-label': 'chess board' });
  const promoEl = h('div', { class: 'promo', hidden: true, role: 'dialog', 'aria-label': 'choose the promotion piece' });
  const boardWrap = h('div', { class: 'board-wrap' }, boardEl, promoEl);

  const banner = h('div', { class: 'banner', role: 'status', 'aria-live': 'polite' });
  const notice = h('div', { class: 'notice', role: 'status', 'aria-live': 'assertive' });
  const pendingEl = h('div', { class: 'pending' });
  const calledEl = h('div', { class: 'called', role: 'status', 'aria-live': 'assertive' });
  const callReason = h('input', { type: 'text', id: 'callreason', maxlength: 200, autocomplete: 'off', placeholder: 'why (optional)', 'aria-label': 'why you call the director (optional)' }) as HTMLInputElement;
  const callBtn = h('button', { type: 'button', class: 'call-director', 'aria-keyshortcuts': 'c' }, 'Call director');
  const callRow = h('div', { class: 'callrow' }, callBtn, callReason);
  const pressBtn = h('button', { type: 'button', class: 'press', 'aria-keyshortcuts': 'Space' }, 'Press clock');
  const takeBackBtn = h('button', { type: 'button', class: 'takeback', 'aria-keyshortcuts': 'Backspace' }, 'Take back');
  const autoPressBox = h('input', { type: 'checkbox', id: 'autopress' }) as HTMLInputElement;
  autoPressBox.checked = autoPress;
  const moveInput = h('input', { type: 'text', id: 'moveinput', autocomplete: 'off', spellcheck: 'false', placeholder: 'e2e4 or Nf3', 'aria-label': 'type a move (squares like e2e4, or SAN in online mode), then Enter' }) as HTMLInputElement;
  const moveForm = h('form', { class: 'moveform' }, h('label', { for: 'moveinput' }, 'Move'), moveInput, h('button', { type: 'submit' }, 'Play'));
  const claimsEl = h('div', { class: 'claims', role: 'group', 'aria-label': 'claims' });
  const offersEl = h('div', { class: 'offers', role: 'group', 'aria-label': 'draw offers and resignation' });
  const controls = h(
    'section',
    { class: 'controls', 'aria-label': 'your actions' },
    h('div', { class: 'pressrow' }, pressBtn, takeBackBtn),
    h('label', { class: 'autopress' }, autoPressBox, ' Move and press as one action'),
    moveForm,
    claimsEl,
    offersEl,
    callRow,
  );
  const movesEl = h('ol', { class: 'moves', 'aria-label': 'moves' });
  const rulingsEl = h('ol', { class: 'rulings', 'aria-label': 'rulings' });
  const pgnLink = h('a', { class: 'pgn', download: `${opts.id}.pgn`, href: `/api/games/${encodeURIComponent(opts.id)}/pgn` }, 'Download PGN');
  const keysHelp = h(
    'details',
    { class: 'keys' },
    h('summary', {}, 'Keyboard'),
    h(
      'p',
      {},
      'Space press · Backspace take back · Enter or / type a move · i illegal · f flag · b both flags · t threefold · y fifty · l ILC · w drawn position · d offer draw · a accept · n decline · r resign · c call the director (stops the clock) · m mute',
    ),
  );

  const side = h(
    'section',
    { class: 'side' },
    banner,
    notice,
    calledEl,
    pendingEl,
    controls,
    h('h2', {}, 'Moves'),
    movesEl,
    h('h2', {}, 'Rulings'),
    rulingsEl,
    h('p', {}, pgnLink),
    keysHelp,
  );
  const main = h('main', { class: 'game' }, h('section', { class: 'board-col' }, clockTop, boardWrap, clockBottom), side);
  root.replaceChildren(header, main);

  const me = (): Color | null => (model.role === 'white' || model.role === 'black' ? model.role : null);

  const cg: CgApi = Chessground(boardEl, {
    coordinates: true,
    autoCastle: false,
    animation: { enabled: true, duration: 120 },
    movable: { free: true, color: undefined, showDests: true, events: { after: (orig, dest) => onBoardMove(orig, dest) } },
    premovable: { enabled: false },
    draggable: { enabled: true, showGhost: true },
    highlight: { lastMove: true, check: true },
  });

  const conn = new Connection({
    url: wsUrl(opts.id, opts.token),
    open: browserSocket,
    onMessage: (msg) => onMessage(msg),
    onStatus: (s, detail) => {
      connStatus = s;
      connDetail = detail ?? '';
      renderStatus();
    },
  });

  function send(action: Record<string, unknown>): void {
    if (!me()) return;
    conn.send(action);
  }

  function onMessage(msg: ServerMessage): void {
    if (msg.type === 'state') model = { ...model, role: roleFrom(msg, opts.token, model.role) };
    const prevClock = model.state?.clock;
    model = reduce(model, msg);
    if (model.state && (msg.type === 'state' || msg.type === 'event')) {
      clock.countsBelowZero = !(model.state.mode === 'online' || model.state.setup.auto_flag);
      if (msg.type === 'state' || model.state.clock !== prevClock) clock.update(model.state.clock, performance.now());
    }
    for (const s of model.sounds) play(s);
    render();
  }

  function renderStatus(): void {
    const text = connStatus === 'online' ? 'online' : connStatus === 'connecting' ? 'connecting…' : connStatus === 'offline' ? 'offline, reconnecting…' : `disconnected${connDetail ? ': ' + connDetail : ''}`;
    statusEl.textContent = text;
    statusEl.className = `conn ${connStatus}`;
    main.classList.toggle('is-offline', connStatus !== 'online');
  }

  function renderMute(): void {
    const m = isMuted();
    muteBtn.textContent = m ? 'Sound: off' : 'Sound: on';
    muteBtn.setAttribute('aria-pressed', String(m));
    muteBtn.setAttribute('aria-label', m ? 'sound is off; turn it on' : 'sound is on; mute');
  }
  muteBtn.addEventListener('click', () => {
    setMuted(!isMuted());
    renderMute();
  });

  function canMoveNow(s: GameState): boolean {
    const c = me();
    return !!c && s.result === '*' && s.to_move === c && boardMoveUci(s.board_move) === null && !s.pending && !s.called;
  }

  function renderBoard(s: GameState): void {
    const c = me();
    const online = s.mode === 'online';
    const dests = new Map<Key, Key[]>();
    if (online && s.dests) for (const [from, tos] of Object.entries(s.dests)) dests.set(from as Key, tos as Key[]);
    const lm = lastMoveSquares(s);
    cg.set({
      fen: s.fen.split(' ')[0],
      orientation: c ?? 'white',
      turnColor: s.to_move,
      lastMove: lm ? (lm as Key[]) : undefined,
      check: checkColor(s) ?? false,
      viewOnly: !c,
      movable: {
        free: !online,
        color: canMoveNow(s) ? c! : undefined,
        dests: online ? dests : undefined,
        showDests: online,
      },
    });
  }

  function renderClocks(now: number): void {
    const s = model.state;
    if (!s) return;
    const bottom: Color = me() ?? 'white';
    for (const [el, color] of [
      [clockBottom, bottom],
      [clockTop, other(bottom)],
    ] as const) {
      const ms = clock.remaining(color, now);
      const running = clock.running === color && s.result === '*';
      const down = ms <= 0 || s.flags.includes(color);
      const name = (color === 'white' ? s.setup.white : s.setup.black) || colorName(color);
      const key = `${color}|${name}|${formatClock(ms)}|${running}|${down}`;
      renderOnce(el as HTMLElement & { _key?: string }, key, () => [
        h('span', { class: 'who' }, h('span', { class: `dot ${color}`, 'aria-hidden': 'true' }), name),
        h('span', { class: 'time', 'aria-hidden': 'true' }, formatClock(ms)),
        down ? h('span', { class: 'flag', title: 'flag down', 'aria-hidden': 'true' }, '⚑') : '',
      ]);
      el.classList.toggle('running', running);
      el.classList.toggle('low', ms > 0 && ms < 10_000);
      el.classList.toggle('down', down);
      el.setAttribute('aria-label', `${name} clock: ${spokenClock(ms)}${running ? ', running' : ''}`);
      if (color === me() && running && ms < 10_000 && ms > 0 && !lowTimeWarned) {
        lowTimeWarned = true;
        play('lowtime');
      }
      if (color === me() && ms >= 10_000) lowTimeWarned = false;
    }
  }

  function claimAction(kind: string): void {
    const action: Record<string, unknown> = { claim: kind };
    if ((kind === 'threefold' || kind === 'fifty') && moveInput.value.trim() !== '' && model.state) {
      const p = parseMoveInput(moveInput.value, { fen: model.state.fen, dests: model.state.dests, color: me()! });
      if (!p.ok) {
        model = { ...model, notice: { tone: 'bad', text: `Intended move: ${p.error}` } };
        render();
        return;
      }
      action.move = p.uci;
      moveInput.value = '';
    }
    send(action);
  }

  function renderControls(s: GameState): void {
    const c = me();
    controls.hidden = !c;
    if (!c) return;
    const over = s.result !== '*';
    const bm = boardMoveUci(s.board_move);
    const myBoardMove = bm !== null && (typeof s.board_move === 'string' || !s.board_move?.by || s.board_move.by === c);
    // Online a move presses the clock; a press alone is not offered (the server refuses it).
    pressBtn.hidden = s.mode === 'online';
    pressBtn.disabled = over || s.to_move !== c || !!s.called;
    pressBtn.classList.toggle('ready', myBoardMove);
    takeBackBtn.disabled = over || !myBoardMove;
    moveInput.disabled = over;
    callRow.hidden = s.setup.director === false;
    callBtn.disabled = !canCallDirector(s, c);
    callReason.disabled = callBtn.disabled;
    const claims = allowedClaims(s, c);
    renderOnce(claimsEl as HTMLElement & { _key?: string }, claims.join(','), () =>
      claims.map((k) =>
        h('button', { type: 'button', class: `claim claim-${k}`, 'data-claim': k, 'aria-keyshortcuts': CLAIM_KEYS[k] ?? '', onclick: () => claimAction(k) }, CLAIM_LABELS[k] ?? `Claim ${k}`),
      ),
    );
    const offerKey = `${over}|${s.draw_offer}|${confirmResign}`;
    renderOnce(offersEl as HTMLElement & { _key?: string }, offerKey, () => {
      if (over) return [];
      const out: HTMLElement[] = [];
      if (s.draw_offer === other(c)) {
        out.push(h('button', { type: 'button', class: 'accept', 'aria-keyshortcuts': 'a', onclick: () => send({ accept: 'draw' }) }, 'Accept draw'));
        out.push(h('button', { type: 'button', class: 'decline', 'aria-keyshortcuts': 'n', onclick: () => send({ decline: 'draw' }) }, 'Decline draw'));
      } else if (s.draw_offer !== c) {
        out.push(h('button', { type: 'button', class: 'offer', 'aria-keyshortcuts': 'd', onclick: () => send({ offer: 'draw' }) }, 'Offer draw'));
      } else {
        out.push(h('span', { class: 'offered' }, 'Draw offered'));
      }
      out.push(
        h(
          'button',
          {
            type: 'button',
            class: confirmResign ? 'resign confirm' : 'resign',
            'aria-keyshortcuts': 'r',
            onclick: () => resign(),
          },
          confirmResign ? 'Really resign?' : 'Resign',
        ),
      );
      return out;
    });
  }

  /** Stop the clock and call the director, with the reason typed beside the button. */
  function callDirector(): void {
    if (!canCallDirector(model.state, model.role)) return;
    const reason = callReason.value.trim();
    send(reason ? { call_director: true, reason } : { call_director: true });
    callReason.value = '';
  }
  callBtn.addEventListener('click', () => callDirector());
  callReason.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') {
      ev.preventDefault();
      callDirector();
    }
  });

  function resign(): void {
    if (!confirmResign) {
      confirmResign = true;
      render();
      setTimeout(() => {
        confirmResign = false;
        render();
      }, 4000);
      return;
    }
    confirmResign = false;
    send({ resign: true });
  }

  function renderSide(s: GameState): void {
    const rt = resultText(s);
    renderOnce(banner as HTMLElement & { _key?: string }, `${s.result}|${s.reason}|${s.rule}`, () =>
      rt ? [h('strong', {}, rt), s.reason ? ` by ${REASON_TEXT[s.reason] ?? s.reason}` : '', s.rule ? ' · ' : '', citation(s.rule) ?? ''] : [],
    );
    banner.hidden = !rt;
    const n = model.notice;
    renderOnce(notice as HTMLElement & { _key?: string }, n ? `${n.tone}|${n.text}|${n.rule}` : '', () => (n ? [n.text, n.rule ? ' · ' : '', citation(n.rule) ?? ''] : []));
    notice.className = `notice ${n?.tone ?? ''}`;
    notice.hidden = !n;
    const p = s.pending;
    renderOnce(pendingEl as HTMLElement & { _key?: string }, JSON.stringify(p), () =>
      p ? [`Waiting for the director: ${colorName(p.claimant)}'s ${p.claim.replace('_', ' ')} claim. The clock is stopped.`] : [],
    );
    pendingEl.hidden = !p;
    const ct = calledText(s);
    renderOnce(calledEl as HTMLElement & { _key?: string }, ct ?? '', () => (ct ? [ct] : []));
    calledEl.hidden = !ct;
    const rows = moveRows(s);
    renderOnce(movesEl as HTMLElement & { _key?: string }, JSON.stringify(rows), () =>
      rows.map((r) => h('li', { value: r.no }, h('span', { class: 'w' }, r.white ?? '…'), ' ', h('span', { class: 'b' }, r.black ?? ''))),
    );
    movesEl.scrollTop = movesEl.scrollHeight;
    renderOnce(rulingsEl as HTMLElement & { _key?: string }, `${s.rulings.length}`, () =>
      s.rulings.map((r) =>
        h('li', { class: `ruling ${r.kind}` }, h('span', { class: 'at', title: 'game time' }, elapsed(r.at)), ' ', h('span', { class: 'text' }, r.ruling), ' ', citation(r.rule) ?? ''),
      ),
    );
    rulingsEl.scrollTop = rulingsEl.scrollHeight;
    const title = header.querySelector('.game-title');
    if (title) title.textContent = `${s.setup.rules} · ${s.setup.time_control} · ${s.mode === 'online' ? 'online' : 'over the board'}${me() ? ` · you play ${me()}` : model.role === 'spectator' ? ' · watching' : ''}`;
  }

  function render(): void {
    renderStatus();
    renderMute();
    const s = model.state;
    if (!s) return;
    main.classList.toggle('spectator', !me());
    renderBoard(s);
    renderControls(s);
    renderSide(s);
    renderClocks(performance.now());
  }

  // --- moves from the board, the promotion picker, the keyboard ---

  function sendMove(uci: string): void {
    send(autoPress ? { move: uci, press: true } : { move: uci });
  }

  function onBoardMove(orig: Key, dest: Key): void {
    const c = me();
    const s = model.state;
    if (!c || !s) return;
    const piece = cg.state.pieces.get(dest);
    const lastRank = c === 'white' ? '8' : '1';
    if (piece?.role === 'pawn' && dest[1] === lastRank) {
      askPromotion(orig, dest, s.mode === 'otb');
      return;
    }
    sendMove(orig + dest);
  }

  function askPromotion(orig: Key, dest: Key, allowNone: boolean): void {
    const choices: [string, string][] = [
      ['q', 'Queen'],
      ['r', 'Rook'],
      ['b', 'Bishop'],
      ['n', 'Knight'],
    ];
    const close = () => {
      promoEl.hidden = true;
      promoEl.replaceChildren();
    };
    promoEl.replaceChildren(
      h('p', {}, 'Promote to'),
      ...choices.map(([l, name]) =>
        h('button', { type: 'button', 'data-promo': l, onclick: () => (close(), sendMove(orig + dest + l)) }, name),
      ),
      allowNone ? h('button', { type: 'button', 'data-promo': '', onclick: () => (close(), sendMove(orig + dest)) }, 'Leave a pawn') : '',
      h('button', { type: 'button', class: 'cancel', onclick: () => (close(), model.state && renderBoard(model.state)) }, 'Cancel'),
    );
    promoEl.hidden = false;
    (promoEl.querySelector('button') as HTMLButtonElement | null)?.focus();
  }

  moveForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const s = model.state;
    const c = me();
    if (!s || !c) return;
    const p = parseMoveInput(moveInput.value, { fen: s.fen, dests: s.mode === 'online' ? s.dests : null, color: c });
    if (!p.ok) {
      model = { ...model, notice: { tone: 'bad', text: p.error } };
      render();
      return;
    }
    moveInput.value = '';
    sendMove(p.uci);
  });

  pressBtn.addEventListener('click', () => send({ press: true }));
  takeBackBtn.addEventListener('click', () => send({ retract: true }));
  autoPressBox.addEventListener('change', () => {
    autoPress = autoPressBox.checked;
    localStorage.setItem(AUTO_PRESS_KEY, autoPress ? '1' : '0');
  });

  function onKey(ev: KeyboardEvent): void {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const target = ev.target as HTMLElement | null;
    if (target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT')) {
      if (ev.key === 'Escape') target.blur();
      // A move never contains a space: in the move box the space bar still presses the clock.
      if (target === moveInput && ev.key === ' ' && me() && model.state?.mode !== 'online') {
        ev.preventDefault();
        send({ press: true });
        moveInput.blur();
      }
      return;
    }
    if (ev.key === 'm') {
      setMuted(!isMuted());
      renderMute();
      return;
    }
    const s = model.state;
    const c = me();
    if (!s || !c) return;
    const claimByKey = Object.entries(CLAIM_KEYS).find(([, k]) => k === ev.key)?.[0];
    let handled = true;
    if (ev.key === ' ') {
      if (s.mode !== 'online') send({ press: true });
    } else if (ev.key === 'Backspace') send({ retract: true });
    else if (ev.key === 'Enter' || ev.key === '/') moveInput.focus();
    else if (claimByKey) {
      if (allowedClaims(s, c).includes(claimByKey)) claimAction(claimByKey);
    } else if (ev.key === 'd') send({ offer: 'draw' });
    else if (ev.key === 'a') send({ accept: 'draw' });
    else if (ev.key === 'n') send({ decline: 'draw' });
    else if (ev.key === 'r') resign();
    else if (ev.key === 'c') callDirector();
    else handled = false;
    if (handled) ev.preventDefault();
  }
  document.addEventListener('keydown', onKey);

  let raf = 0;
  const tick = () => {
    renderClocks(performance.now());
    raf = requestAnimationFrame(tick);
  };
  raf = requestAnimationFrame(tick);

  renderStatus();
  renderMute();
  conn.start();

  return () => {
    cancelAnimationFrame(raf);
    document.removeEventListener('keydown', onKey);
    conn.stop();
    cg.destroy();
  };
}
