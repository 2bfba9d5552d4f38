// The page's WebSocket to a game: reconnects by itself with capped exponential backoff,
// measures lag with ping frames, and resends actions the server has not answered yet
// (each carries an "id", so the server applies a retried action once). In a cluster it
// follows the server's `reconnect` to the node serving the game (docs/cluster.md).
import { parseServerMessage, type ServerMessage } from './protocol';

/** Capped exponential backoff with jitter: attempt 0 waits about `baseMs`, then doubling up to `maxMs`. */
export class Backoff {
  attempt = 0;
  constructor(
    readonly baseMs = 500,
    readonly maxMs = 10_000,
    private readonly random: () => number = Math.random,
  ) {}

  /** The wait before the next attempt (and counts the attempt): between half and all of the cap. */
  next(): number {
    const cap = Math.min(this.maxMs, this.baseMs * 2 ** Math.min(this.attempt, 30));
    this.attempt += 1;
    return Math.round(cap / 2 + (cap / 2) * this.random());
  }

  reset(): void {
    this.attempt = 0;
  }
}

/** The subset of the browser's WebSocket the connection uses (so tests can supply a fake). */
export interface SocketLike {
  readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
}

export type ConnStatus = 'connecting' | 'online' | 'offline' | 'closed';

export interface Timers {
  now(): number;
  setTimeout(f: () => void, ms: number): unknown;
  clearTimeout(h: unknown): void;
  setInterval(f: () => void, ms: number): unknown;
  clearInterval(h: unknown): void;
}

export const browserTimers: Timers = {
  now: () => performance.now(),
  setTimeout: (f, ms) => setTimeout(f, ms),
  clearTimeout: (h) => clearTimeout(h as number),
  setInterval: (f, ms) => setInterval(f, ms),
  clearInterval: (h) => clearInterval(h as number),
};

export interface ConnectionOptions {
  url: string;
  open: (url: string) => SocketLike;
  onMessage: (msg: ServerMessage) => void;
  onStatus?: (s: ConnStatus, detail?: string) => void;
  timers?: Timers;
  backoff?: Backoff;
  pingEveryMs?: number;
  /** Unique action ids; tests pass a counter. */
  newId?: () => string;
}

const OPEN = 1;

/**
 * `url` with `node=`: empty, this page follows a `reconnect`; a node's name, it was told
 * to reconnect to that node (the balancer sends it there; never told again).
 */
export function withNode(url: string, node: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}node=${encodeURIComponent(node)}`;
}

/** Close codes after which reconnecting cannot help (the server refused the token or the game). */
const FINAL_CLOSE_CODES = new Set([1008, 4001, 4003, 4004]);

/**
 * How long after an `error` naming no id (a frame the server dropped unread, over its
 * rate limit: docs/protocol.md "Limits") the actions still unanswered go out again, with
 * their ids: the server's allowance has refilled by then, and it answers an id it has
 * already applied with the event it made, applying nothing twice.
 */
export const RESEND_AFTER_DROP_MS = 1000;

export class Connection {
  status: ConnStatus = 'connecting';
  /** Smoothed one-way network delay from ping round trips, ms (null before the first pong). */
  lagMs: number | null = null;
  private socket: SocketLike | null = null;
  private readonly timers: Timers;
  private readonly backoff: Backoff;
  private retryTimer: unknown = null;
  private resendTimer: unknown = null;
  private pingTimer: unknown = null;
  private stopped = false;
  private seq = 0;
  /** The node the server said serves the game ('' until told; forgotten on any other close). */
  private node = '';
  /** The number of the last event this page has (from the last state and the events since). */
  private lastN: number | null = null;
  /** Actions sent (or waiting to be sent) whose answer has not arrived, in order. */
  readonly outbox = new Map<string, Record<string, unknown>>();

  constructor(private readonly opts: ConnectionOptions) {
    this.timers = opts.timers ?? browserTimers;
    this.backoff = opts.backoff ?? new Backoff();
  }

  start(): void {
    this.stopped = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer !== null) this.timers.clearTimeout(this.retryTimer);
    if (this.resendTimer !== null) this.timers.clearTimeout(this.resendTimer);
    this.resendTimer = null;
    this.stopPing();
    this.socket?.close(1000, 'page closed');
    this.setStatus('closed');
  }

  /**
   * Sends an action (a game-script event without at/by). It gets an id and stays in the
   * outbox until the server answers it; while offline it waits and goes out on reconnect.
   * Returns the id.
   */
  send(action: Record<string, unknown>): string {
    const id = (action.id as string | undefined) ?? this.nextId();
    const frame: Record<string, unknown> = { ...action, id };
    // The server takes lag compensation only with a press (docs/protocol.md).
    if (this.lagMs !== null && action.press === true) frame.lag_ms = Math.round(this.lagMs);
    this.outbox.set(id, frame);
    if (this.socket && this.socket.readyState === OPEN) this.socket.send(JSON.stringify(frame));
    return id;
  }

  private nextId(): string {
    if (this.opts.newId) return this.opts.newId();
    this.seq += 1;
    const rnd = Math.floor(Math.random() * 2 ** 32).toString(36);
    return `a${Date.now().toString(36)}${rnd}${this.seq}`;
  }

  private setStatus(s: ConnStatus, detail?: string): void {
    this.status = s;
    this.opts.onStatus?.(s, detail);
  }

  private connect(): void {
    if (this.stopped) return;
    this.setStatus(this.backoff.attempt === 0 ? 'connecting' : 'offline');
    let sock: SocketLike;
    try {
      sock = this.opts.open(withNode(this.opts.url, this.node));
    } catch (e) {
      this.scheduleRetry(String(e));
      return;
    }
    this.socket = sock;
    sock.onopen = () => {
      this.backoff.reset();
      this.setStatus('online');
      this.startPing();
    };
    sock.onmessage = (ev) => {
      if (typeof ev.data !== 'string') return;
      let msg: ServerMessage;
      try {
        msg = parseServerMessage(ev.data);
      } catch (e) {
        this.opts.onStatus?.(this.status, (e as Error).message);
        return;
      }
      this.handle(msg);
    };
    sock.onerror = () => {
      /* onclose follows */
    };
    sock.onclose = (ev) => {
      if (this.socket !== sock) return;
      this.socket = null;
      this.stopPing();
      if (this.stopped) return;
      // Anything but the way to the game's node: let the balancer choose again.
      this.node = '';
      if (FINAL_CLOSE_CODES.has(ev.code)) {
        this.stopped = true;
        this.setStatus('closed', ev.reason || `closed (${ev.code})`);
        return;
      }
      this.scheduleRetry(ev.reason);
    };
  }

  /** Drop the socket and open a new one at once: the server sends a fresh state. */
  resync(): void {
    const sock = this.socket;
    this.socket = null;
    this.lastN = null;
    this.stopPing();
    sock?.close(4000, 'resynchronising');
    this.connect();
  }

  private scheduleRetry(detail?: string): void {
    const wait = this.backoff.next();
    this.setStatus('offline', detail);
    this.retryTimer = this.timers.setTimeout(() => {
      this.retryTimer = null;
      this.connect();
    }, wait);
  }

  private handle(msg: ServerMessage): void {
    switch (msg.type) {
      case 'reconnect': {
        // Another node serves the game: go there at once (the server closes with 4302).
        // Told once: a URL naming a node is never answered with another reconnect.
        if (this.node !== '') return;
        this.node = msg.node;
        const sock = this.socket;
        this.socket = null;
        this.stopPing();
        sock?.close(1000, 'reconnecting to the game\'s node');
        this.connect();
        return;
      }
      case 'state':
        this.lastN = msg.n;
        // A fresh state after (re)connecting: what is still unanswered goes out again,
        // with the same ids, so the server applies each action at most once.
        this.opts.onMessage(msg);
        for (const frame of this.outbox.values()) this.socket?.send(JSON.stringify(frame));
        return;
      case 'event': {
        if (this.lastN !== null && msg.n > this.lastN + 1) {
          // An event is missing (events carry changes, not the state): start over
          // with a fresh state rather than show a wrong one.
          this.resync();
          return;
        }
        if (this.lastN !== null) this.lastN = Math.max(this.lastN, msg.n);
        const id = (typeof msg.event.id === 'string' ? msg.event.id : undefined) ?? msg.id ?? undefined;
        if (id !== undefined) this.outbox.delete(id);
        break;
      }
      case 'refused':
        if (msg.id != null) this.outbox.delete(msg.id);
        break;
      case 'error':
        if (msg.id != null) this.outbox.delete(msg.id);
        else this.resendSoon();
        break;
      case 'pong': {
        const sent = Number(msg.ping);
        if (Number.isFinite(sent)) {
          const oneWay = Math.max(0, (this.timers.now() - sent) / 2);
          this.lagMs = this.lagMs === null ? oneWay : this.lagMs * 0.7 + oneWay * 0.3;
        }
        return;
      }
      default:
        break;
    }
    this.opts.onMessage(msg);
  }

  /** After a dropped frame: the unanswered actions once more, in order, a little later. */
  private resendSoon(): void {
    if (this.resendTimer !== null || this.outbox.size === 0) return;
    this.resendTimer = this.timers.setTimeout(() => {
      this.resendTimer = null;
      if (this.socket?.readyState !== OPEN) return; // a reconnect's state resends them
      for (const frame of this.outbox.values()) this.socket.send(JSON.stringify(frame));
    }, RESEND_AFTER_DROP_MS);
  }

  private startPing(): void {
    this.stopPing();
    const every = this.opts.pingEveryMs ?? 3000;
    const ping = () => {
      if (this.socket && this.socket.readyState === OPEN) this.socket.send(JSON.stringify({ ping: Math.round(this.timers.now()) }));
    };
    ping();
    this.pingTimer = this.timers.setInterval(ping, every);
  }

  private stopPing(): void {
    if (this.pingTimer !== null) this.timers.clearInterval(this.pingTimer);
    this.pingTimer = null;
  }
}

/** Opens a browser WebSocket as the connection's socket. */
export function browserSocket(url: string): SocketLike {
  return new WebSocket(url) as unknown as SocketLike;
}
