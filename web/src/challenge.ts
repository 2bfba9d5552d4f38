// The page an open challenge's creator waits on (`/challenge/{id}?secret=`): it polls the
// challenge once a second and goes to the game as soon as someone accepts.
import { cancelChallenge, getChallenge, type Challenge } from './api';
import { challengeText } from './lobbyview';
import { h } from './dom';

/** Where the creator goes once the challenge is accepted (null while it waits). */
export function creatorDestination(c: Challenge): { url: string } | null {
  if (c.status !== 'accepted' || !c.game) return null;
  // A challenge's game has no director: the creator holds their own colour's token only.
  return { url: c.game.url };
}

export function mountChallenge(root: HTMLElement, id: string, secret: string | null): () => void {
  const status = h('p', { class: 'waiting', role: 'status', 'aria-live': 'polite' }, 'Loading the challenge…');
  const what = h('p', { class: 'what' });
  const errorEl = h('p', { class: 'error', role: 'alert' });
  const cancelBtn = h('button', { type: 'button', class: 'cancel-challenge' }, 'Cancel the challenge');
  cancelBtn.hidden = !secret;
  root.replaceChildren(
    h('header', { class: 'top' }, h('a', { href: '/', class: 'brand' }, 'flagfall'), h('span', { class: 'game-title' }, 'Open challenge')),
    h(
      'main',
      { class: 'challenge-page' },
      h('h1', {}, 'Waiting for an opponent'),
      what,
      status,
      h('p', {}, 'Anyone in the lobby can accept it. Keep this page open: it goes to the game by itself.'),
      cancelBtn,
      errorEl,
      h('p', {}, h('a', { href: '/' }, 'Back to the lobby')),
    ),
  );
  let stopped = false;
  let timer = 0;
  async function poll(): Promise<void> {
    if (stopped) return;
    try {
      const c = await getChallenge(id, secret);
      what.textContent = challengeText(c, !!secret);
      const dest = creatorDestination(c);
      if (dest) {
        status.textContent = 'Accepted: going to the game…';
        stopped = true;
        location.assign(dest.url);
        return;
      }
      if (c.status === 'cancelled') {
        status.textContent = 'This challenge was cancelled.';
        cancelBtn.hidden = true;
        stopped = true;
        return;
      }
      if (c.status === 'expired') {
        status.textContent = 'This challenge expired: nobody accepted it within half an hour. Open a new one from the lobby.';
        cancelBtn.hidden = true;
        stopped = true;
        return;
      }
      if (c.status === 'accepted') {
        status.textContent = 'Someone accepted this challenge.';
        stopped = true;
        return;
      }
      status.textContent = 'Open: waiting for someone to accept…';
    } catch (e) {
      errorEl.textContent = `Could not read the challenge: ${(e as Error).message}`;
    }
    if (!stopped) timer = window.setTimeout(() => void poll(), 1000);
  }
  cancelBtn.addEventListener('click', async () => {
    if (!secret) return;
    try {
      await cancelChallenge(id, secret);
      status.textContent = 'This challenge was cancelled.';
      cancelBtn.hidden = true;
      stopped = true;
    } catch (e) {
      errorEl.textContent = `Could not cancel: ${(e as Error).message}`;
    }
  });
  void poll();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
