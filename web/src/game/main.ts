// Mounts the game page: the controller, the snabbdom patch loop, the page's keys and a
// clock tick (a redraw every 100 ms while a clock runs; renders stay one per frame).
import { attributesModule, classModule, eventListenersModule, init, propsModule, type VNode } from 'snabbdom';
import { unlockSound } from '../sound';
import { GameCtrl, type GameOptions } from './ctrl';
import { view } from './view';

const patch = init([classModule, attributesModule, propsModule, eventListenersModule]);

export function mountGame(root: HTMLElement, opts: GameOptions): () => void {
  const mountPoint = document.createElement('div');
  root.replaceChildren(mountPoint);
  let vnode: VNode | HTMLElement = mountPoint;
  const ctrl: GameCtrl = new GameCtrl(opts, () => {
    vnode = patch(vnode, view(ctrl));
  });

  const onKey = (ev: KeyboardEvent): void => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const target = ev.target as HTMLElement | null;
    if (target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT')) {
      if (ev.key === 'Escape') target.blur();
      // A move never contains a space: in the move box the space bar still presses the clock.
      if (target.id === 'moveinput' && ev.key === ' ' && ctrl.me() && !ctrl.online()) {
        ev.preventDefault();
        ctrl.press();
        target.blur();
      }
      return;
    }
    if (target && target.tagName === 'BUTTON' && (ev.key === ' ' || ev.key === 'Enter')) return;
    const handled = ctrl.key(
      ev.key,
      () => (document.getElementById('moveinput') as HTMLInputElement | null)?.value ?? '',
      () => document.getElementById('moveinput')?.focus(),
      () => (document.getElementById('callreason') as HTMLInputElement | null)?.value ?? '',
    );
    if (handled) ev.preventDefault();
  };
  // Browsers start sound only after a gesture on the page.
  const onGesture = (): void => {
    if (unlockSound()) ctrl.redraw();
  };
  document.addEventListener('keydown', onKey);
  document.addEventListener('pointerdown', onGesture);
  const tick = setInterval(() => {
    if (ctrl.clock.running) ctrl.redraw();
  }, 100);

  ctrl.redraw();
  ctrl.start();
  return () => {
    clearInterval(tick);
    document.removeEventListener('keydown', onKey);
    document.removeEventListener('pointerdown', onGesture);
    ctrl.stop();
  };
}
