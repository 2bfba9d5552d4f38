// The evening's page for the venue (`/events/{id}/join`, the `join` link of the evening's
// creation): what a player who walks in needs without a token. How to check in (their
// personal link, the QR card the director hands out), and "find your board": the round
// being played, searched by name, live over `/ws/events/{id}`. It reads only public
// routes; a player's own actions stay behind their personal link.
import { attributesModule, classModule, eventListenersModule, h, init, propsModule, type VNode } from 'snabbdom';
import type { BoardView, EveningSummary, RoundView } from '../wire';
import { eventApi, resultText } from './common';
import { matchText } from './mine';
import { liveEvening } from './live';
import { boardsFor, fold, reduceJoin, type JoinAction, type JoinModel } from './joinmodel';

class JoinCtrl {
  model: JoinModel = { event: null, round: null, search: '', live: 'connecting', error: null };
  private frame = 0;
  private stopLive: () => void = () => {};

  constructor(
    readonly id: string,
    private readonly onRedraw: () => void,
  ) {}

  dispatch(a: JoinAction): void {
    this.model = reduceJoin(this.model, a);
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
        if (msg.type === 'state') {
          this.dispatch({ type: 'event', event: msg.event });
          this.dispatch({ type: 'round', round: msg.round });
        } else if (msg.type === 'change') {
          void this.read();
        }
      },
      (live) => this.dispatch({ type: 'status', live }),
    );
  }

  stop(): void {
    this.stopLive();
    cancelAnimationFrame(this.frame);
  }

  async read(): Promise<void> {
    try {
      const event = await eventApi<EveningSummary>(this.id, '', null);
      this.dispatch({ type: 'event', event });
      const round = event.rounds_paired > 0 ? await eventApi<RoundView>(this.id, `/rounds/${event.rounds_paired}`, null) : null;
      this.dispatch({ type: 'round', round });
    } catch (e) {
      this.dispatch({ type: 'error', error: `Could not read the evening: ${(e as Error).message}` });
    }
  }
}

function boardV(b: BoardView): VNode {
  const any = b.results.some((r) => r !== null);
  // Two games a board: who has White in game 1, and the match score (issue 31), never "1–0, 0–1".
  const pair =
    b.results.length > 1
      ? ` ${b.white.name} – ${b.black.name} (${b.white.name} White in game 1, ${b.black.name} in game 2)${any ? ` · match ${matchText(b.results)}` : ''}`
      : ` ${b.white.name} (White) – ${b.black.name} (Black)${any ? ` · ${b.results.map((r) => resultText(r) || '…').join(', ')}` : ''}`;
  return h('li.join-board', { attrs: { 'data-board': String(b.board) } }, [h('span.boardno-small', `Board ${b.board}`), h('span.pair', pair)]);
}

function roundV(ctrl: JoinCtrl): VNode {
  const m = ctrl.model;
  if (!m.round) return h('section.find', [h('h2', 'Pairings'), h('p', 'No round is paired yet: the pairings show here the moment the director starts a round.')]);
  const shown = boardsFor(m.round, m.search);
  const byes = (m.round.bye ?? []).filter((b) => fold(b.name).includes(fold(m.search)));
  return h('section.find', [
    h('h2', `Round ${m.round.round}: find your board`),
    h('label', [
      'Your name ',
      h('input.search', {
        attrs: { type: 'search', autocomplete: 'off', placeholder: 'type part of your name' },
        props: { value: m.search },
        on: { input: (e: Event) => ctrl.dispatch({ type: 'search', text: (e.target as HTMLInputElement).value }) },
      }),
    ]),
    shown.length || byes.length
      ? h('ul.join-boards', [...shown.map(boardV), ...byes.map((b) => h('li.join-board', `${b.name}: ${b.kind} bye this round`))])
      : h('p', `No board this round has a player named like “${m.search}”.`),
  ]);
}

export function mountEventJoin(root: HTMLElement, id: string): () => void {
  const patch = init([classModule, propsModule, attributesModule, eventListenersModule]);
  const mountPoint = document.createElement('div');
  root.replaceChildren(mountPoint);
  let vnode: VNode | HTMLElement = mountPoint;
  const ctrl: JoinCtrl = new JoinCtrl(id, () => render());
  const render = (): void => {
    const m = ctrl.model;
    if (m.event) document.title = `flagfall · ${m.event.name}`;
    vnode = patch(
      vnode,
      h('div#app', [
        h('header.top', [
          h('a.brand', { attrs: { href: '/' } }, 'flagfall'),
          h('span.game-title', m.event?.name ?? 'Evening'),
          h(`span.livestate.${m.live}`, { attrs: { role: 'status' } }, m.live === 'online' ? 'live' : m.live === 'connecting' ? 'connecting…' : 'offline: reconnecting…'),
        ]),
        h('main.event-player.event-join', [
          h('h1.me', m.event ? `Welcome to ${m.event.name}` : 'Welcome'),
          m.error ? h('p.error', { attrs: { role: 'alert' } }, m.error) : null,
          h('section.howto', [
            h('h2', 'Check in'),
            h('p', 'Scan the QR code on the card the director gives you (or open the personal link you were sent): it opens your own page, where you check in, see your board and opponent, and report your results.'),
            h('p.muted', 'Not on the list yet? Ask the director to enter you: only players checked in are paired.'),
          ]),
          m.event ? roundV(ctrl) : h('p', 'Reading the evening…'),
        ]),
      ]),
    );
  };
  ctrl.start();
  render();
  return () => ctrl.stop();
}
