// A player's page of an evening (their personal link, `/events/{id}/player?token=T`),
// phone first: check in; this round's board, colour and opponent, with the link to play
// (games on the server) or the form to report the result (physical boards); score and
// rank. Live over `/ws/events/{id}`: every change reads the player's own view again.
import { attributesModule, classModule, eventListenersModule, h, init, propsModule, type VNode } from 'snabbdom';
import type { EveningSummary, Me, RoundView } from '../wire';
import { eventApi, playerAction, resultText } from './common';
import { liveEvening } from './live';
import { initialPlayer, myBoard, reducePlayer, type PlayerAction, type PlayerModel } from './model';
import { byeText, scoreText } from './projmodel';

class PlayerCtrl {
  model: PlayerModel = initialPlayer();
  private frame = 0;
  private stopLive: () => void = () => {};
  private reading = false;
  private again = false;

  constructor(
    readonly id: string,
    readonly token: string,
    private readonly onRedraw: () => void,
  ) {}

  dispatch(a: PlayerAction): void {
    this.model = reducePlayer(this.model, a);
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
        if (msg.type === 'state') this.dispatch({ type: 'event', event: msg.event });
        // A player who joins (or leaves) counts in "rank 3 of 12" at once.
        if (msg.type === 'change' && msg.players && this.model.event) this.dispatch({ type: 'event', event: { ...this.model.event, players: msg.players } });
        if (msg.type !== 'dispute') void this.read();
      },
      (live) => this.dispatch({ type: 'status', live }),
    );
  }

  stop(): void {
    this.stopLive();
    cancelAnimationFrame(this.frame);
  }

  /** The player's own view and their round, read again (one read at a time; a change during it reads once more). */
  async read(): Promise<void> {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    try {
      do {
        this.again = false;
        const me = await eventApi<Me>(this.id, '/me', this.token);
        this.dispatch({ type: 'me', me });
        if (me.round) this.dispatch({ type: 'round', round: await eventApi<RoundView>(this.id, `/rounds/${me.round}`, this.token) });
        if (!this.model.event) this.dispatch({ type: 'event', event: await eventApi<EveningSummary>(this.id, '', this.token) });
      } while (this.again);
    } catch (e) {
      this.dispatch({ type: 'error', error: `Could not read your page: ${(e as Error).message}` });
    }
    this.reading = false;
  }

  async act(tail: string, body: unknown, notice: string): Promise<void> {
    this.dispatch({ type: 'busy', on: true });
    try {
      await eventApi(this.id, tail, this.token, 'POST', body);
      this.dispatch({ type: 'notice', notice });
      void this.read();
    } catch (e) {
      this.dispatch({ type: 'error', error: (e as Error).message });
    }
  }
}

const colourName = (c: string): string => (c === 'white' ? 'White' : 'Black');

function checkInV(ctrl: PlayerCtrl, me: Me): VNode {
  // A name no longer in the evening (removed before round 1) has no pairing number.
  const n = me.number;
  if (n === undefined) return h('p.status', 'You are not in this evening (any more): ask the director.');
  if (me.withdrawn_from) return h('p.status', `You are withdrawn from round ${me.withdrawn_from}: ask the director if that is wrong.`);
  if (me.checked_in)
    return h('div.checkin.done', [
      h('p.status', me.paused ? 'Checked in, paused: you are not paired until you resume (ask the director).' : 'You are checked in: you will be paired.'),
      h('button.check-out', { attrs: { type: 'button', disabled: ctrl.model.busy }, on: { click: () => void ctrl.act(playerAction(n, 'check-out'), undefined, 'You are checked out: you will not be paired.') } }, 'Check out'),
    ]);
  return h('div.checkin', [
    h('p.status', 'You are not checked in yet: only checked-in players are paired.'),
    h('button.primary.check-in', { attrs: { type: 'button', disabled: ctrl.model.busy }, on: { click: () => void ctrl.act(playerAction(n, 'check-in'), undefined, 'You are checked in.') } }, "I'm here: check in"),
  ]);
}

function reportV(ctrl: PlayerCtrl, me: Me): VNode | null {
  const board = myBoard(ctrl.model);
  const results = me.results ?? [];
  // Games on the server bring their results by themselves; only physical boards report.
  if (ctrl.model.event?.play !== 'board') return null;
  if (!board || !me.board || results.every((r) => r !== null)) return null;
  const mine = me.colour === 'white' ? board.reported?.white : board.reported?.black;
  const theirs = me.colour === 'white' ? board.reported?.black : board.reported?.white;
  const choose = (g: number) =>
    h(
      'div.choose',
      { attrs: { role: 'group', 'aria-label': results.length > 1 ? `game ${g + 1}` : 'result' } },
      [
        results.length > 1 ? h('span', `Game ${g + 1}: `) : null,
        ...['1-0', '1/2', '0-1'].map((r) =>
          h(
            'button.pick',
            {
              class: { on: ctrl.model.report[g] === r },
              attrs: { type: 'button', 'data-result': r, 'aria-pressed': ctrl.model.report[g] === r ? 'true' : 'false' },
              on: { click: () => ctrl.dispatch({ type: 'report', game: g, result: r }) },
            },
            resultText(r),
          ),
        ),
      ],
    );
  const ready = ctrl.model.report.length === results.length && ctrl.model.report.every((r) => r);
  return h('section.report', { attrs: { 'aria-labelledby': 'report-title' } }, [
    h('h2#report-title', 'Report the result'),
    h('p.muted', 'As the board stands: White’s result first (1–0 White won, 0–1 Black won).'),
    ...results.map((_r, g) => choose(g)),
    h(
      'button.primary.send-report',
      { attrs: { type: 'button', disabled: !ready || ctrl.model.busy }, on: { click: () => void ctrl.act(`/rounds/${me.round}/boards/${me.board}/result`, results.length === 1 ? { result: ctrl.model.report[0] } : { results: ctrl.model.report }, 'Your result is reported.') } },
      'Report',
    ),
    mine ? h('p.reported', `You reported ${mine.map(resultText).join(', ')}.${theirs ? ` Your opponent reported ${theirs.map(resultText).join(', ')}${theirs.join() === mine.join() ? '' : ': the director decides'}.` : ' Waiting for your opponent’s report.'}`) : null,
  ]);
}

function roundV(ctrl: PlayerCtrl, me: Me): VNode {
  if (me.round === 0) return h('section.myround', [h('p.big', 'No round yet: your board shows here when the director starts round 1.')]);
  if (me.bye) return h('section.myround', [h('h2', `Round ${me.round}`), h('p.big', `Not paired this round: ${byeText(me.bye)}.`)]);
  if (!me.board || !me.opponent || !me.colour) return h('section.myround', [h('h2', `Round ${me.round}`), h('p.big', 'You are not paired this round.')]);
  const results = me.results ?? [];
  const done = results.every((r) => r !== null);
  return h('section.myround', { attrs: { 'aria-labelledby': 'round-title' } }, [
    h('h2#round-title', `Round ${me.round}`),
    h('p.boardno', [h('span.label', 'Board'), h('span.number', String(me.board))]),
    h('p.pairing', `You play ${colourName(me.colour)} against ${me.opponent.name} (${me.opponent.number}).`),
    h('p.myresult', done ? `Result: ${results.map(resultText).join(', ')}` : 'Result: not in yet.'),
    ...(me.games ?? []).map((g, i) =>
      done ? null : h('a.button.primary.play', { attrs: { href: `${g.url}?token=${encodeURIComponent(ctrl.token)}` } }, (me.games?.length ?? 0) > 1 ? `Play game ${i + 1}` : 'Play your game'),
    ),
    reportV(ctrl, me),
  ]);
}

export function mountEventPlayer(root: HTMLElement, id: string, token: string | null): () => void {
  const patch = init([classModule, propsModule, attributesModule, eventListenersModule]);
  const mountPoint = document.createElement('div');
  root.replaceChildren(mountPoint);
  let vnode: VNode | HTMLElement = mountPoint;
  if (!token) {
    patch(vnode, h('div#app', [h('main.event-player', [h('h1', 'Your evening'), h('p.error', { attrs: { role: 'alert' } }, 'This link has no player token: open the personal link the director gave you.')])]));
    return () => {};
  }
  const ctrl: PlayerCtrl = new PlayerCtrl(id, token, () => render());
  const render = (): void => {
    const m = ctrl.model;
    const me = m.me;
    if (m.event) document.title = `flagfall · ${m.event.name}`;
    vnode = patch(
      vnode,
      h('div#app', [
        h('header.top', [
          h('a.brand', { attrs: { href: '/' } }, 'flagfall'),
          h('span.game-title', m.event?.name ?? 'Evening'),
          h(`span.livestate.${m.live}`, { attrs: { role: 'status' } }, m.live === 'online' ? 'live' : m.live === 'connecting' ? 'connecting…' : 'offline: reconnecting…'),
        ]),
        h('main.event-player', [
          me ? h('h1.me', me.name) : h('p', 'Reading your page…'),
          h('div.messages', { attrs: { 'aria-live': 'polite' } }, [m.error ? h('p.error', { attrs: { role: 'alert' } }, m.error) : null, m.notice ? h('p.notice.good', m.notice) : null]),
          me ? checkInV(ctrl, me) : null,
          me ? roundV(ctrl, me) : null,
          me ? h('p.score', [`Score: ${scoreText(me.points)}`, me.rank ? ` · rank ${me.rank} of ${m.event?.players.length ?? '?'}` : '']) : null,
        ]),
      ]),
    );
  };
  ctrl.start();
  render();
  return () => ctrl.stop();
}
