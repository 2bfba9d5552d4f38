import { describe, expect, it } from 'vitest';
import { Backoff, Connection, type SocketLike, type Timers } from '../src/connection';
import type { ServerMessage } from '../src/protocol';

class FakeSocket implements SocketLike {
  readyState = 0;
  sent: string[] = [];
  closed: { code?: number; reason?: string } | null = null;
  onopen: ((ev: unknown) => void) | null = null;
  onclose: ((ev: { code: number; reason: string }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  constructor(readonly url: string) {}
  send(data: string) {
    if (this.readyState !== 1) throw new Error('send on a socket that is not open');
    this.sent.push(data);
  }
  close(code?: number, reason?: string) {
    this.closed = { code, reason };
    this.readyState = 3;
  }
  // test helpers
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  drop(code = 1006, reason = '') {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }
  receive(msg: unknown) {
    this.onmessage?.({ data: JSON.stringify(msg) });
  }
  frames() {
    return this.sent.map((s) => JSON.parse(s));
  }
}

class FakeTimers implements Timers {
  t = 0;
  private seq = 0;
  tasks = new Map<number, { at: number; f: () => void; every?: number }>();
  now() {
    return this.t;
  }
  setTimeout(f: () => void, ms: number) {
    this.seq += 1;
    this.tasks.set(this.seq, { at: this.t + ms, f });
    return this.seq;
  }
  clearTimeout(h: unknown) {
    this.tasks.delete(h as number);
  }
  setInterval(f: () => void, ms: number) {
    this.seq += 1;
    this.tasks.set(this.seq, { at: this.t + ms, f, every: ms });
    return this.seq;
  }
  clearInterval(h: unknown) {
    this.tasks.delete(h as number);
  }
  advance(ms: number) {
    const end = this.t + ms;
    for (;;) {
      const due = [...this.tasks.entries()].filter(([, v]) => v.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      const [h, task] = due;
      this.t = task.at;
      if (task.every) task.at += task.every;
      else this.tasks.delete(h);
      task.f();
    }
    this.t = end;
  }
}

function setup() {
  const sockets: FakeSocket[] = [];
  const messages: ServerMessage[] = [];
  const statuses: string[] = [];
  const timers = new FakeTimers();
  let n = 0;
  const conn = new Connection({
    url: 'ws://x/ws/games/g1?token=t',
    open: (url) => {
      const s = new FakeSocket(url);
      sockets.push(s);
      return s;
    },
    onMessage: (m) => messages.push(m),
    onStatus: (s) => statuses.push(s),
    timers,
    backoff: new Backoff(500, 8_000, () => 1),
    pingEveryMs: 3000,
    newId: () => `id${++n}`,
  });
  return { conn, sockets, messages, statuses, timers };
}

const STATE = { type: 'state', id: 'g1', n: 0 };

describe('Backoff', () => {
  it('doubles up to the cap, with jitter between half and all of it', () => {
    const b = new Backoff(500, 4_000, () => 1);
    expect([b.next(), b.next(), b.next(), b.next(), b.next()]).toEqual([500, 1000, 2000, 4000, 4000]);
    const low = new Backoff(500, 4_000, () => 0);
    expect([low.next(), low.next()]).toEqual([250, 500]);
    b.reset();
    expect(b.next()).toBe(500);
  });
});

describe('Connection', () => {
  it('reconnects by itself after a drop, waiting longer each time, and says it is offline', () => {
    const { conn, sockets, statuses, timers } = setup();
    conn.start();
    expect(sockets).toHaveLength(1);
    sockets[0].open();
    expect(conn.status).toBe('online');
    sockets[0].drop();
    expect(conn.status).toBe('offline');
    timers.advance(499);
    expect(sockets).toHaveLength(1);
    timers.advance(1);
    expect(sockets).toHaveLength(2);
    sockets[1].drop(); // the server is still away
    timers.advance(999);
    expect(sockets).toHaveLength(2);
    timers.advance(1);
    expect(sockets).toHaveLength(3);
    sockets[2].open();
    expect(conn.status).toBe('online');
    expect(statuses).toContain('offline');
    // back online: the backoff starts over
    sockets[2].drop();
    timers.advance(500);
    expect(sockets).toHaveLength(4);
  });

  it('follows a reconnect to the node it names, once, and forgets the node when that socket drops', () => {
    const { conn, sockets, messages, timers } = setup();
    conn.start();
    expect(sockets[0].url).toBe('ws://x/ws/games/g1?token=t&node=');
    sockets[0].open();
    sockets[0].receive({ type: 'reconnect', node: 'n2' });
    // at once, no backoff, naming the node; the told socket closed; nothing shown
    expect(sockets).toHaveLength(2);
    expect(sockets[0].closed?.code).toBe(1000);
    expect(sockets[1].url).toBe('ws://x/ws/games/g1?token=t&node=n2');
    expect(messages).toHaveLength(0);
    sockets[1].open();
    // a second reconnect (a server never sends one to a named node) is not followed
    sockets[1].receive({ type: 'reconnect', node: 'n3' });
    expect(sockets).toHaveLength(2);
    sockets[1].receive(STATE);
    expect(messages.map((m) => m.type)).toEqual(['state']);
    // the game moved (1012): the balancer chooses again
    sockets[1].drop(1012, 'the game moved');
    timers.advance(500);
    expect(sockets).toHaveLength(3);
    expect(sockets[2].url).toBe('ws://x/ws/games/g1?token=t&node=');
  });

  it('gives up when the server closes for a reason reconnecting cannot fix', () => {
    const { conn, sockets, timers } = setup();
    conn.start();
    sockets[0].open();
    sockets[0].drop(1008, 'token does not belong to this game');
    timers.advance(60_000);
    expect(sockets).toHaveLength(1);
    expect(conn.status).toBe('closed');
  });

  it('resends unanswered actions with the same id after reconnecting, and forgets answered ones', () => {
    const { conn, sockets, timers, messages } = setup();
    conn.start();
    sockets[0].open();
    sockets[0].receive(STATE);
    const a = conn.send({ move: 'e2e4', press: true });
    const b = conn.send({ claim: 'flag' });
    expect(a).toBe('id1');
    expect(sockets[0].frames().filter((f) => !('ping' in f))).toEqual([
      { move: 'e2e4', press: true, id: 'id1' },
      { claim: 'flag', id: 'id2' },
    ]);
    // The move is acknowledged (its stored event carries the id); the claim is not.
    sockets[0].receive({ type: 'event', n: 1, event: { at: 10, by: 'white', move: 'e2e4', press: true, id: 'id1' }, rulings: [], clock: { white_ms: 1, black_ms: 1, running: 'black' }, result: '*' });
    expect(conn.outbox.has('id1')).toBe(false);
    sockets[0].drop();
    const c = conn.send({ resign: true }); // made while offline: waits
    timers.advance(500);
    sockets[1].open();
    expect(sockets[1].frames().filter((f) => !('ping' in f))).toEqual([]);
    sockets[1].receive(STATE);
    expect(sockets[1].frames().filter((f) => !('ping' in f))).toEqual([
      { claim: 'flag', id: 'id2' },
      { resign: true, id: c },
    ]);
    sockets[1].receive({ type: 'refused', id: 'id2', reason: 'no flag is down' });
    expect([...conn.outbox.keys()]).toEqual([c]);
    expect(messages.map((m) => m.type)).toEqual(['state', 'event', 'state', 'refused']);
  });

  it('sends the unanswered actions again a second after the server dropped a frame', () => {
    const { conn, sockets, timers, messages } = setup();
    conn.start();
    sockets[0].open();
    sockets[0].receive(STATE);
    conn.send({ move: 'e2e4', press: true });
    conn.send({ claim: 'flag' });
    const actions = () => sockets[0].frames().filter((f) => !('ping' in f));
    expect(actions()).toHaveLength(2);
    // The claim is refused; the move was over the server's rate limit: dropped unread,
    // answered by an error that cannot name it.
    sockets[0].receive({ type: 'refused', id: 'id2', reason: 'no flag is down' });
    sockets[0].receive({ type: 'error', message: 'rate limit: at most 20 messages a second; this one was dropped' });
    sockets[0].receive({ type: 'error', message: 'rate limit: at most 20 messages a second; this one was dropped' });
    expect(messages.map((m) => m.type)).toEqual(['state', 'refused', 'error', 'error']);
    timers.advance(999);
    expect(actions()).toHaveLength(2);
    timers.advance(1);
    // Once, however many drops were told: the move, with its id.
    expect(actions()).toEqual([
      { move: 'e2e4', press: true, id: 'id1' },
      { claim: 'flag', id: 'id2' },
      { move: 'e2e4', press: true, id: 'id1' },
    ]);
    sockets[0].receive({ type: 'event', n: 1, event: { at: 10, by: 'white', move: 'e2e4', press: true, id: 'id1' }, rulings: [], clock: { white_ms: 1, black_ms: 1, running: 'black' }, result: '*' });
    expect(conn.outbox.size).toBe(0);
    // A drop with nothing unanswered sends nothing; an error naming its action answers it.
    sockets[0].receive({ type: 'error', message: 'rate limit: at most 20 messages a second; this one was dropped' });
    const c = conn.send({ resign: true });
    sockets[0].receive({ type: 'error', id: c, message: 'resign: not now' });
    timers.advance(2000);
    expect(actions()).toHaveLength(4);
    expect(conn.outbox.size).toBe(0);
  });

  it('starts over with a fresh state when an event is missing', () => {
    const { conn, sockets, messages } = setup();
    conn.start();
    sockets[0].open();
    sockets[0].receive(STATE);
    const n0 = STATE.n;
    const ev = (n: number) => ({ type: 'event', n, event: { at: n, by: 'white', press: true }, rulings: [], clock: { white_ms: 1, black_ms: 1, running: 'black' }, result: '*', update: {} });
    sockets[0].receive(ev(n0 + 1));
    expect(sockets).toHaveLength(1);
    sockets[0].receive(ev(n0 + 3));
    // The gap is not passed on: a new socket opens at once for a fresh state.
    expect(sockets).toHaveLength(2);
    expect(messages.map((m) => m.type)).toEqual(['state', 'event']);
    sockets[1].open();
    sockets[1].receive({ ...STATE, n: n0 + 3 });
    sockets[1].receive(ev(n0 + 4));
    expect(messages.map((m) => m.type)).toEqual(['state', 'event', 'state', 'event']);
    expect(conn.status).toBe('online');
  });

  it('measures lag from pong frames and sends it with presses only', () => {
    const { conn, sockets, timers } = setup();
    conn.start();
    timers.t = 1000;
    sockets[0].open();
    expect(sockets[0].frames()[0]).toEqual({ ping: 1000 });
    timers.t = 1080;
    sockets[0].receive({ type: 'pong', ping: 1000 });
    expect(conn.lagMs).toBe(40);
    conn.send({ press: true });
    expect(sockets[0].frames().at(-1)).toEqual({ press: true, id: 'id1', lag_ms: 40 });
    conn.send({ claim: 'illegal' });
    expect(sockets[0].frames().at(-1)).toEqual({ claim: 'illegal', id: 'id2' });
    conn.send({ move: 'e2e4' });
    expect(sockets[0].frames().at(-1)).toEqual({ move: 'e2e4', id: 'id3' });
    conn.send({ move: 'e2e4', press: true });
    expect(sockets[0].frames().at(-1)).toEqual({ move: 'e2e4', press: true, id: 'id4', lag_ms: 40 });
    timers.advance(3000);
    expect(sockets[0].frames().at(-1)).toEqual({ ping: 4000 });
  });

  it('reports a frame it cannot read without dropping the connection', () => {
    const { conn, sockets, messages } = setup();
    const details: (string | undefined)[] = [];
    (conn as unknown as { opts: { onStatus: (s: string, d?: string) => void } }).opts.onStatus = (_s, d) => details.push(d);
    conn.start();
    sockets[0].open();
    sockets[0].onmessage?.({ data: 'not json' });
    sockets[0].receive({ type: 'mystery' });
    expect(messages).toEqual([]);
    expect(details).toContain('server frame is not JSON');
    expect(details).toContain('unknown server message type "mystery"');
    expect(conn.status).toBe('online');
  });
});
