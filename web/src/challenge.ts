// The page an open challenge's creator waits on (`/challenge/{id}?secret=`): it polls the
// challenge once a second and goes to the game as soon as someone accepts. A model changed
// only by its reducer, one snabbdom view, one render per animation frame.
import { cancelChallenge, getChallenge } from './api';
import { challengeText, creatorDestination, reduceChallenge, type ChallengeAction, type ChallengeModel } from './lobbyview';
import { attributesModule, classModule, eventListenersModule, h, init, propsModule, type VNode } from 'snabbdom';

function challengeView(m: ChallengeModel, secret: string | null, cancel: () => void): VNode {
  return h('div#app', [
    h('header.top', [h('a.brand', { attrs: { href: '/' } }, 'flagfall'), h('span.game-title', 'Open challenge')]),
    h('main.challenge-page', [
      h('h1', m.done ? 'Open challenge' : 'Waiting for an opponent'),
      h('p.what', m.challenge ? challengeText(m.challenge, !!secret) : ''),
      h('p.waiting', { attrs: { role: 'status', 'aria-live': 'polite' } }, m.status),
      m.done ? null : h('p', 'Anyone in the lobby can accept it. Keep this page open: it goes to the game by itself.'),
      secret && !m.done ? h('button.cancel-challenge', { attrs: { type: 'button' }, on: { click: cancel } }, 'Cancel the challenge') : null,
      h('p.error', { attrs: { role: 'alert' } }, m.error ?? ''),
      h('p', h('a', { attrs: { href: '/' } }, 'Back to the lobby')),
    ]),
  ]);
}

const patch = init([classModule, attributesModule, propsModule, eventListenersModule]);

export function mountChallenge(root: HTMLElement, id: string, secret: string | null): () => void {
  let model: ChallengeModel = { challenge: null, status: 'Loading the challenge…', done: false, error: null };
  const mountPoint = document.createElement('div');
  root.replaceChildren(mountPoint);
  let vnode: VNode | HTMLElement = mountPoint;
  let frame = 0;
  let timer = 0;
  const render = (): void => {
    frame = 0;
    vnode = patch(vnode, challengeView(model, secret, () => void cancel()));
  };
  const dispatch = (a: ChallengeAction): void => {
    model = reduceChallenge(model, a);
    if (!frame) frame = requestAnimationFrame(render);
  };
  async function poll(): Promise<void> {
    if (model.done) return;
    try {
      const c = await getChallenge(id, secret);
      dispatch({ type: 'read', challenge: c, secret: !!secret });
      const dest = creatorDestination(c);
      if (dest) {
        location.assign(dest.url);
        return;
      }
    } catch (e) {
      dispatch({ type: 'error', error: `Could not read the challenge: ${(e as Error).message}` });
    }
    if (!model.done) timer = window.setTimeout(() => void poll(), 1000);
  }
  async function cancel(): Promise<void> {
    if (!secret) return;
    try {
      await cancelChallenge(id, secret);
      dispatch({ type: 'cancelled' });
    } catch (e) {
      dispatch({ type: 'error', error: `Could not cancel: ${(e as Error).message}` });
    }
  }
  render();
  void poll();
  return () => {
    model = { ...model, done: true };
    clearTimeout(timer);
    cancelAnimationFrame(frame);
  };
}
