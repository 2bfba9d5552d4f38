// A player's page of an evening (their personal link, `/events/{id}/player?token=T`),
// phone first: check in; this round's board, colour and opponent, with the link to play
// (games on the server) or the form to report the result (physical boards); score and
// rank. Live over `/ws/events/{id}`: every change reads the player's own view again.
import { attributesModule, classModule, eventListenersModule, h, init, propsModule, type VNode } from 'snabbdom';
import type { EveningSummary, Me, RoundView } from '../wire';
import { eventApi, playerAction } from './common';
import { playerByesV } from './byes';
import './phone.css';
import { colourWord, gameColour, myResultsText, outcomeOf, resultOf, type Outcome } from './mine';
import { liveEvening } from './live';
import { initialPlayer, myBoard, reducePlayer, type PlayerAction, type PlayerModel } from './model';
import { refusalAbout } from './notices';
import { byeText, scoreText } from './projmodel';

class PlayerCtrl {
  model: PlayerModel = initialPlayer();
  private frame = 0;
  private stopLive: () => void = () => {};
  private reading = false;
  private again = false;
  /** Check-out asked, waiting for its confirmation. */
  confirmOut = false;

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
        // A refusal the change lifts is taken down (notices.ts).
        if (msg.type === 'change') this.dispatch({ type: 'lift', effects: msg.effects });
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
        const moved = boardMoved(this.model.me, me);
        this.dispatch({ type: 'me', me });
        if (moved) this.dispatch({ type: 'notice', notice: moved });
        if (me.round) this.dispatch({ type: 'round', round: await eventApi<RoundView>(this.id, `/rounds/${me.round}`, this.token) });
        // The evening too: its rounds paired say which rounds a bye may still be asked for.
        this.dispatch({ type: 'event', event: await eventApi<EveningSummary>(this.id, '', this.token) });
      } while (this.again);
      // A read that failed before no longer holds once one goes through.
      if (this.model.errorAbout === 'read') this.dispatch({ type: 'error', error: null });
    } catch (e) {
      this.dispatch({ type: 'error', error: `Could not read your page: ${(e as Error).message}`, about: 'read' });
    }
    this.reading = false;
  }

  /** A player's action; its notice is taken down once `holds` no longer holds of the player's view (a check-out undone by the director, ...). */
  async act(tail: string, body: unknown, notice: string, holds?: (me: Me) => boolean): Promise<void> {
    this.dispatch({ type: 'busy', on: true });
    try {
      await eventApi(this.id, tail, this.token, 'POST', body);
      this.dispatch({ type: 'notice', notice, holds });
      void this.read();
    } catch (e) {
      this.dispatch({ type: 'error', error: (e as Error).message, about: refusalAbout(tail, 'POST') });
    }
  }
}

const colourName = (c: string): string => (c === 'white' ? 'White' : 'Black');

/**
 * When the same round's board changed under the player (a correction of an earlier round
 * paired it again, the director unpaired it or paired it by hand): the words that say so,
 * so that a player already seated is not left at the old board.
 */
export function boardMoved(before: Me | null, now: Me): string | null {
  if (!before?.round || before.round !== now.round) return null;
  if (before.board === now.board && before.opponent?.number === now.opponent?.number && before.colour === now.colour) return null;
  if (!before.board) return now.board && now.opponent && now.colour ? `Round ${now.round} was paired again: you are paired now, on board ${now.board}, ${colourName(now.colour)} against ${now.opponent.name}.` : null;
  const was = `board ${before.board} against ${before.opponent?.name ?? '?'}`;
  if (!now.board || !now.opponent || !now.colour) return `Round ${now.round} was paired again: you are no longer on ${was}.${now.bye ? ` You have a bye (${now.bye}).` : ''}`;
  return `Round ${now.round} was paired again: your board changed. You are now on board ${now.board}, ${colourName(now.colour)} against ${now.opponent.name} (not ${was}).`;
}

function checkInV(ctrl: PlayerCtrl, me: Me): VNode {
  // A name no longer in the evening (removed before round 1) has no pairing number.
  const n = me.number;
  if (n === undefined) return h('p.status', 'You are not in this evening (any more): ask the director.');
  if (me.withdrawn_from) return h('p.status', `You are withdrawn from round ${me.withdrawn_from}: ask the director if that is wrong.`);
  if (me.checked_in)
    return h('div.checkin.done', [
      h('p.status', me.paused ? 'Checked in, paused: you are not paired until you resume (ask the director).' : 'You are checked in: you will be paired.'),
      ctrl.confirmOut ? checkOutConfirmV(ctrl, me, n) : h('button.check-out', { attrs: { type: 'button', disabled: ctrl.model.busy }, on: { click: () => ((ctrl.confirmOut = true), ctrl.dispatch({ type: 'busy', on: false })) } }, 'Check out'),
    ]);
  return h('div.checkin', [
    h('p.status', 'You are not checked in yet: only checked-in players are paired.'),
    h('button.primary.check-in', { attrs: { type: 'button', disabled: ctrl.model.busy }, on: { click: () => void ctrl.act(playerAction(n, 'check-in'), undefined, 'You are checked in.', (m) => m.checked_in === true) } }, "I'm here: check in"),
  ]);
}

/** Check-out asks first: one tap must not cost a round (issue 31, item 4). */
function checkOutConfirmV(ctrl: PlayerCtrl, me: Me, n: number): VNode {
  const next = (me.round ?? 0) + 1;
  const close = (): void => {
    ctrl.confirmOut = false;
    ctrl.dispatch({ type: 'busy', on: false });
  };
  const playing = !!me.board && (me.results ?? []).some((r) => r === null);
  return h('div.confirm-out', { attrs: { role: 'alertdialog', 'aria-labelledby': 'confirm-out-text' } }, [
    h('p#confirm-out-text', [
      h('strong', 'Check out? '),
      `You will not be paired in round ${next} or after, until you check in again.`,
      playing ? ` Your game of round ${me.round} still counts: finish it.` : '',
    ]),
    h('div.buttons', [
      h('button.danger.confirm-check-out', { attrs: { type: 'button', disabled: ctrl.model.busy }, on: { click: () => { ctrl.confirmOut = false; void ctrl.act(playerAction(n, 'check-out'), undefined, `You are checked out: you will not be paired from round ${next}. Check in again to be paired.`, (m) => m.checked_in === false); } } }, 'Yes, check me out'),
      h('button.keep-in', { attrs: { type: 'button' }, on: { click: close } }, 'No, stay checked in'),
    ]),
  ]);
}

const OUTCOMES: [Outcome, string][] = [
  ['won', 'I won'],
  ['lost', 'I lost'],
  ['draw', 'Draw'],
];

function reportV(ctrl: PlayerCtrl, me: Me): VNode | null {
  const board = myBoard(ctrl.model);
  const results = me.results ?? [];
  // Games on the server bring their results by themselves; only physical boards report.
  if (ctrl.model.event?.play !== 'board') return null;
  if (!board || !me.board || !me.colour || results.every((r) => r !== null)) return null;
  const colour = me.colour;
  const mine = colour === 'white' ? board.reported?.white : board.reported?.black;
  const theirs = colour === 'white' ? board.reported?.black : board.reported?.white;
  // Each game asked in the player's terms, with that game's colour; the form stores White's result first.
  const choose = (g: number) => {
    const c = gameColour(colour, g);
    const chosen = outcomeOf(ctrl.model.report[g], c);
    return h('div.choose', { attrs: { role: 'group', 'aria-label': results.length > 1 ? `game ${g + 1}, you are ${colourWord(c)}` : `your game, you are ${colourWord(c)}` } }, [
      h('span.which', [results.length > 1 ? `Game ${g + 1} — you are ` : 'You are ', h(`strong.colour.${c}`, colourWord(c)), ':']),
      ...OUTCOMES.map(([o, label]) =>
        h(
          'button.pick',
          {
            class: { on: chosen === o },
            attrs: { type: 'button', 'data-outcome': o, 'data-result': resultOf(o, c), 'aria-pressed': chosen === o ? 'true' : 'false' },
            on: { click: () => ctrl.dispatch({ type: 'report', game: g, result: resultOf(o, c) }) },
          },
          label,
        ),
      ),
    ]);
  };
  const ready = ctrl.model.report.length === results.length && ctrl.model.report.every((r) => r);
  return h('section.report', { attrs: { 'aria-labelledby': 'report-title' } }, [
    h('h2#report-title', results.length > 1 ? 'Report your games' : 'Report your game'),
    h('p.muted', results.length > 1 ? 'How did each game go for you? Your colour changes in game 2.' : 'How did the game go for you?'),
    ...results.map((_r, g) => choose(g)),
    h(
      'button.primary.send-report',
      { attrs: { type: 'button', disabled: !ready || ctrl.model.busy }, on: { click: () => void ctrl.act(`/rounds/${me.round}/boards/${me.board}/result`, results.length === 1 ? { result: ctrl.model.report[0] } : { results: ctrl.model.report }, 'Your result is reported.') } },
      'Report',
    ),
    mine
      ? h('p.reported', `You reported: ${myResultsText(mine, colour)}.${theirs ? ` Your opponent's report, for you: ${myResultsText(theirs, colour)}${theirs.join() === mine.join() ? '' : ': the director decides'}.` : ' Waiting for your opponent’s report.'}`)
      : null,
  ]);
}

/** The board's games on the server: each game's result as soon as it ends, game 2 offered once game 1 is over. */
function gamesV(ctrl: PlayerCtrl, me: Me, colour: NonNullable<Me['colour']>): (VNode | null)[] {
  const results = me.results ?? [];
  const games = me.games ?? [];
  const two = games.length > 1;
  return games.map((g, i) => {
    const c = gameColour(colour, i);
    if (results[i] != null) return null;
    if (i > 0 && results[i - 1] == null) return h('p.muted.next-game', `Game ${i + 1} (you are ${colourWord(c)}) opens here when game ${i} ends.`);
    return h('a.button.primary.play', { attrs: { href: `${g.url}?token=${encodeURIComponent(ctrl.token)}` } }, two ? `Play game ${i + 1} (you are ${colourWord(c)})` : `Play your game (you are ${colourWord(c)})`);
  });
}

function roundV(ctrl: PlayerCtrl, me: Me): VNode {
  if (me.round === 0) return h('section.myround', [h('p.big', 'No round yet: your board shows here when the director starts round 1.')]);
  if (me.bye) return h('section.myround', [h('h2', `Round ${me.round}`), h('p.big', `Not paired this round: ${byeText(me.bye)}.`)]);
  if (!me.board || !me.opponent || !me.colour) return h('section.myround', [h('h2', `Round ${me.round}`), h('p.big', 'You are not paired this round.')]);
  const results = me.results ?? [];
  const any = results.some((r) => r !== null);
  const two = results.length > 1;
  return h('section.myround', { attrs: { 'aria-labelledby': 'round-title' } }, [
    h('h2#round-title', `Round ${me.round}`),
    h('p.boardno', [h('span.label', 'Board'), h('span.number', String(me.board))]),
    h('p.pairing', two ? `You play ${me.opponent.name} (${me.opponent.number}) twice: ${colourWord(me.colour)} in game 1, ${colourWord(gameColour(me.colour, 1))} in game 2.` : `You play ${colourWord(me.colour)} against ${me.opponent.name} (${me.opponent.number}).`),
    h('p.myresult', any ? `Result: ${myResultsText(results, me.colour)}` : 'Result: not in yet.'),
    ...gamesV(ctrl, me, me.colour),
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
          me?.number !== undefined && !me.withdrawn_from
            ? playerByesV(m.event, me.byes, {
                busy: m.busy,
                book: (round, kind) => void ctrl.act(playerAction(me.number as number, 'bye'), { round, kind }, `Your bye in round ${round} is booked.`),
                cancel: (round) => void ctrl.act(playerAction(me.number as number, 'cancel-bye'), { round }, `Your bye in round ${round} is cancelled.`),
              })
            : null,
          me ? h('p.score', [`Score: ${scoreText(me.points)}`, me.rank ? ` · rank ${me.rank} of ${m.event?.players.length ?? '?'}` : '']) : null,
        ]),
      ]),
    );
  };
  ctrl.start();
  render();
  return () => ctrl.stop();
}
