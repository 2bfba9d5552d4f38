// The game page's controller (`/play/{id}?token=`, `/watch/{id}`), after lichess's round UI:
// it owns the model and changes it only through the one reducer (`reduce` in model.ts),
// sends the player's actions, and asks for a redraw, at most one per animation frame, so a
// flood of server messages costs one render per frame, never one per message.
import type { Api as CgApi } from 'chessground/api';
import type { Key } from 'chessground/types';
import { getGame, getRematch, postRematch, wsUrl } from '../api';
import { LiveClock } from '../clock';
import { browserSocket, Connection, type ConnStatus } from '../connection';
import { allowed, allowedClaims, canCallDirector, initialModel, reduce, type LocalAction, type Model } from '../model';
import { parseMoveInput, readTyped } from '../moveinput';
import type { GameEvening } from '../wire';
import { CLAIM_KEYS, type Color, type PlayerActions, type ServerMessage } from '../protocol';
import { play, setMuted, isMuted, unlockSound, type SoundName } from '../sound';

const AUTO_PRESS_KEY = 'flagfall.autopress';

export interface GameOptions {
  id: string;
  token: string | null;
}

export class GameCtrl {
  model: Model;
  readonly clock = new LiveClock();
  conn: ConnStatus = 'connecting';
  connDetail = '';
  autoPress: boolean;
  /** The chessground board, set by the board view when it is created. */
  cg: CgApi | null = null;
  private frame = 0;
  private readonly connection: Connection;
  private lowTimeWarned = false;
  private resignTimer: ReturnType<typeof setTimeout> | null = null;
  private rematchTimer: ReturnType<typeof setInterval> | null = null;
  /** The evening the game plays for (its round and board), once read; null: none (or not read yet). */
  evening: GameEvening | null = null;
  /** Whether `GET /api/games/{id}` has said whether the game plays for an evening. */
  private eveningRead = false;
  /** The typed move in flight (its action id), and the last typed move refused, in words: the clock is not pressed until a move is on the board. */
  typed: { id: string | null; refused: string | null } = { id: null, refused: null };

  constructor(
    readonly opts: GameOptions,
    private readonly onRedraw: () => void,
  ) {
    this.model = initialModel('spectator');
    this.autoPress = localStorage.getItem(AUTO_PRESS_KEY) === '1';
    this.connection = new Connection({
      url: wsUrl(opts.id, opts.token),
      open: browserSocket,
      onMessage: (msg) => this.onMessage(msg),
      onStatus: (s, detail) => {
        this.conn = s;
        this.connDetail = detail ?? '';
        this.redraw();
      },
    });
  }

  start(): void {
    this.connection.start();
    void this.readEvening();
  }

  /** Whether the game plays for an evening (read once: it does not change); a game of an evening has no rematch. */
  private async readEvening(): Promise<void> {
    for (let attempt = 0; attempt < 3 && !this.eveningRead; attempt++) {
      try {
        this.evening = (await getGame(this.opts.id)).evening ?? null;
        this.eveningRead = true;
      } catch {
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    // Unread after three tries: the page goes on as a game of no evening.
    this.eveningRead = true;
    if (this.over() && this.me() && !this.evening && !this.rematchTimer) this.watchRematch();
    this.redraw();
  }

  stop(): void {
    if (this.rematchTimer) clearInterval(this.rematchTimer);
    cancelAnimationFrame(this.frame);
    this.connection.stop();
    this.cg?.destroy();
  }

  /** The colour this page plays, or null (a spectator). */
  me(): Color | null {
    const r = this.model.role;
    return r === 'white' || r === 'black' ? r : null;
  }

  online(): boolean {
    return this.model.state?.mode === 'online';
  }

  /** What the server says this page's player may do now (null: a spectator, or no state yet). */
  may(): PlayerActions | null {
    return allowed(this.model.state, this.model.role);
  }

  /** The one way the model changes. */
  dispatch(action: ServerMessage | LocalAction): void {
    this.model = reduce(this.model, action);
    this.redraw();
  }

  private onMessage(msg: ServerMessage): void {
    const prevClock = this.model.state?.clock;
    // The typed move's answer: refused (said by the move box, the press held back), or stored.
    if ((msg.type === 'refused' || msg.type === 'error') && this.typed.id && msg.id === this.typed.id) {
      this.typed = { id: null, refused: msg.type === 'refused' ? msg.reason : msg.message };
    } else if (msg.type === 'event' && this.typed.id && msg.id === this.typed.id) {
      this.typed = { id: null, refused: null };
    }
    this.dispatch(msg);
    const mine = this.me();
    if (mine && this.model.state?.board_move?.by === mine) this.typed = { id: null, refused: null };
    const s = this.model.state;
    if (s && (msg.type === 'state' || msg.type === 'event')) {
      this.clock.countsBelowZero = !(s.mode === 'online' || s.setup.auto_flag);
      if (msg.type === 'state' || s.clock !== prevClock) this.clock.update(s.clock, performance.now());
      if (this.over() && this.me() && this.eveningRead && !this.evening && !this.rematchTimer) this.watchRematch();
    }
  }

  /** The game has ended (a result, or the director cancelled it). */
  over(): boolean {
    const s = this.model.state;
    return !!s && (s.result !== '*' || s.reason !== null);
  }

  /** After the game: ask where the rematch stands every 1.5 s; go to the new game once it exists. */
  private watchRematch(): void {
    const token = this.opts.token;
    if (!token) return;
    const poll = async () => {
      try {
        const v = await getRematch(this.opts.id, token);
        this.dispatch({ type: 'local:rematch', view: v });
        if (v.status === 'accepted' && v.game) this.goTo(v.game.url);
      } catch {
        /* the next poll tries again; the page stays as it is */
      }
    };
    void poll();
    this.rematchTimer = setInterval(() => void poll(), 1500);
  }

  /** Offer, accept or decline a rematch. */
  async rematch(action: 'offer' | 'accept' | 'decline'): Promise<void> {
    const token = this.opts.token;
    if (!token || this.evening) return;
    try {
      const v = await postRematch(this.opts.id, token, action);
      this.dispatch({ type: 'local:rematch', view: v });
      if (v.status === 'accepted' && v.game) this.goTo(v.game.url);
    } catch (e) {
      this.notice(`Rematch: ${(e as Error).message}`);
    }
  }

  /** Leave for another page (the new game of a rematch). */
  goTo(url: string): void {
    if (this.rematchTimer) clearInterval(this.rematchTimer);
    this.rematchTimer = null;
    location.assign(url);
  }

  /** Asks for a render in the next animation frame (many calls, one render). */
  redraw(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      const sounds = new Set<SoundName>(this.model.sounds);
      if (sounds.size) {
        this.model = reduce(this.model, { type: 'local:sounds-played' });
        for (const s of sounds) play(s);
      }
      this.onRedraw();
      this.afterRender();
    });
  }

  /** After a render: premoves, and the low-time beep. */
  private afterRender(): void {
    const s = this.model.state;
    const c = this.me();
    if (!s || !c) return;
    if (s.mode === 'online' && s.to_move === c && s.result === '*') this.cg?.playPremove();
    const ms = this.clock.remaining(c, performance.now());
    if (this.clock.running === c && ms > 0 && ms < 10_000 && !this.lowTimeWarned) {
      this.lowTimeWarned = true;
      play('lowtime');
    }
    if (ms >= 10_000) this.lowTimeWarned = false;
  }

  send(action: Record<string, unknown>): string | null {
    if (!this.me()) return null;
    return this.connection.send(action);
  }

  notice(text: string, tone: 'bad' | 'info' = 'bad'): void {
    this.dispatch({ type: 'local:notice', notice: { tone, text } });
  }

  /** A move made on the board or typed: online and with "move and press" it is pressed too. */
  sendMove(uci: string): void {
    const pressToo = this.online() || (this.autoPress && !!this.may()?.move_and_press);
    this.send(pressToo ? { move: uci, press: true } : { move: uci });
  }

  /**
   * Whether the move from `orig` to `dest` needs a promotion piece, as the server says:
   * online, its legal moves list one move a piece (`e7e8q`); over the board, a pawn put on
   * the rank the server names for the player's colour.
   */
  private promotes(orig: Key, dest: Key, c: Color): boolean {
    const s = this.model.state;
    if (!s) return false;
    if (s.mode === 'online') return Object.keys(s.san ?? {}).some((u) => u.length === 5 && u.startsWith(orig + dest));
    // chessground has already moved the piece: it stands on `dest`.
    return this.cg?.state.pieces.get(dest)?.role === 'pawn' && dest[1] === s.promotion_ranks[c];
  }

  /** A move the board made: asks for the promotion piece when the move promotes. */
  boardMove(orig: Key, dest: Key, premove = false): void {
    const c = this.me();
    const s = this.model.state;
    if (!c || !s) return;
    this.typed = { id: null, refused: null };
    // A premove is checked against the legal moves when it is played: a pawn premoved to
    // the last rank promotes to a queen, as lichess does.
    const premovePromotes = premove && this.cg?.state.pieces.get(dest)?.role === 'pawn' && dest[1] === s.promotion_ranks[c];
    if (premovePromotes || this.promotes(orig, dest, c)) {
      // A premove promotes to a queen, as lichess does; otherwise the player chooses.
      if (premove) this.sendMove(orig + dest + 'q');
      else this.dispatch({ type: 'local:promotion', ask: { orig, dest } });
      return;
    }
    this.sendMove(orig + dest);
  }

  /** The promotion piece chosen (`''`: leave a pawn, over the board), or null: cancelled. */
  promote(piece: string | null): void {
    const p = this.model.ui.promotion;
    this.dispatch({ type: 'local:promotion', ask: null, cancelled: piece === null });
    if (p && piece !== null) this.sendMove(p.orig + p.dest + piece);
  }

  /**
   * Whether the press is held back: over the board, after a typed move that was refused
   * (or while one is on its way), until a move of the player's is on the board, so a
   * refused move never leaves a press with no move made.
   */
  pressHeld(): boolean {
    if (this.online()) return false;
    const c = this.me();
    if (c && this.model.state?.board_move?.by === c) return false;
    return this.typed.id !== null || this.typed.refused !== null;
  }

  press(): void {
    if (this.pressHeld()) {
      this.notice(`No move is on the board${this.typed.refused ? ' (your typed move was not played)' : ''}: make your move first, then press the clock.`);
      return;
    }
    if (this.may()?.press) this.send({ press: true });
  }

  takeBack(): void {
    if (this.may()?.take_back) this.send({ retract: true });
  }

  setAutoPress(on: boolean): void {
    this.autoPress = on;
    localStorage.setItem(AUTO_PRESS_KEY, on ? '1' : '0');
    this.redraw();
  }

  /** A move typed in the move box: squares as they are, SAN for the server to read. False: refused here (said, and the press held back). */
  typedMove(text: string): boolean {
    const s = this.model.state;
    const c = this.me();
    if (!s || !c) return false;
    const t = readTyped(text);
    if (!t.ok) {
      this.typed = { id: null, refused: t.error };
      this.notice(t.error);
      return false;
    }
    if ('uci' in t) {
      this.typed = { id: null, refused: null };
      this.sendMove(t.uci);
      return true;
    }
    const pressToo = this.online() || (this.autoPress && !!this.may()?.move_and_press);
    this.typed = { id: this.send(pressToo ? { san: t.san, press: true } : { san: t.san }), refused: null };
    this.redraw();
    return true;
  }

  claim(kind: string, intended: string): boolean {
    const action: Record<string, unknown> = { claim: kind };
    const s = this.model.state;
    if ((kind === 'threefold' || kind === 'fifty') && intended.trim() !== '' && s) {
      const p = parseMoveInput(intended, s.san);
      if (!p.ok) {
        this.notice(`Intended move: ${p.error}`);
        return false;
      }
      action.move = p.uci;
    }
    this.send(action);
    return true;
  }

  resign(): void {
    if (!this.model.ui.confirmResign) {
      this.dispatch({ type: 'local:confirm-resign', on: true });
      if (this.resignTimer) clearTimeout(this.resignTimer);
      this.resignTimer = setTimeout(() => this.dispatch({ type: 'local:confirm-resign', on: false }), 4000);
      return;
    }
    this.dispatch({ type: 'local:confirm-resign', on: false });
    this.send({ resign: true });
  }

  callDirector(reason: string): void {
    if (!canCallDirector(this.model.state, this.model.role)) return;
    const r = reason.trim();
    this.send(r ? { call_director: true, reason: r } : { call_director: true });
  }

  view(ply: number | null): void {
    this.dispatch({ type: 'local:view', ply });
  }

  /** Steps through the move list: -1 back, +1 forward. */
  step(delta: number): void {
    const s = this.model.state;
    if (!s) return;
    const cur = this.model.ui.viewPly ?? s.moves.length;
    this.view(cur + delta);
  }

  flip(): void {
    this.dispatch({ type: 'local:flip' });
  }

  toggleMute(): void {
    setMuted(!isMuted());
    this.redraw();
  }

  /** The page's keys (docs/web.md "Keyboard"); false when the key is not the page's. */
  key(key: string, intended: () => string, focusMove: () => void, reason: () => string): boolean {
    unlockSound();
    const s = this.model.state;
    if (key === 'm') this.toggleMute();
    else if (key === 'x') this.flip();
    else if (key === 'ArrowLeft') this.step(-1);
    else if (key === 'ArrowRight') this.step(1);
    else if (key === 'Home') this.view(0);
    else if (key === 'End' || key === 'ArrowDown') this.view(null);
    else if (key === 'ArrowUp') this.view(0);
    else {
      const c = this.me();
      if (!s || !c) return false;
      const claimByKey = Object.entries(CLAIM_KEYS).find(([, k]) => k === key)?.[0];
      if (key === ' ') {
        if (!this.may()?.press) return false;
        this.press();
      } else if (key === 'Backspace') this.takeBack();
      else if (key === 'Enter' || key === '/') focusMove();
      else if (claimByKey) {
        if (allowedClaims(s, c).includes(claimByKey)) this.claim(claimByKey, intended());
      } else if (key === 'd') {
        if (this.may()?.offer_draw) this.send({ offer: 'draw' });
      } else if (key === 'a') {
        if (this.may()?.answer_draw) this.send({ accept: 'draw' });
      } else if (key === 'n') {
        if (this.may()?.answer_draw) this.send({ decline: 'draw' });
      } else if (key === 'r') {
        if (this.may()?.resign) this.resign();
      }
      else if (key === 'c') this.callDirector(reason());
      else return false;
    }
    return true;
  }
}
