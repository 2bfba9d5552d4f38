import { beforeAll, describe, expect, it } from 'vitest';
import type { ServerMessage } from '../src/protocol';
import { actions, PROMOTION_RANKS } from './fixtures';

// The controller runs in the browser; give it the few globals it reads, with a
// requestAnimationFrame the test flushes by hand.
const frames: (() => void)[] = [];
beforeAll(() => {
  const g = globalThis as Record<string, unknown>;
  g.location = { protocol: 'http:', host: 'localhost' };
  const store = new Map<string, string>();
  g.localStorage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => store.set(k, v) };
  g.requestAnimationFrame = (f: () => void) => frames.push(f);
  g.cancelAnimationFrame = () => {};
});

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

function stateMsg(): ServerMessage {
  return {
    type: 'state', id: 'g', setup: { rules: 'uscf-2020', time_control: 'G/5;d0' }, mode: 'otb', result: '*', reason: null, rule: null,
    clock: { white_ms: 300_000, black_ms: 300_000, running: null }, fen: START, rulings: [], moves: [], to_move: 'white', running: null,
    pending: null, called: null, flags: [], board_move: null, claims: { white: [], black: [] }, actions: actions(), draw_offer: null, n: 0, server_now: 0, role: 'white',
    promotion_ranks: PROMOTION_RANKS,
  };
}

describe('the game controller', () => {
  it('renders a flood of messages once per animation frame, with the last state', async () => {
    const { GameCtrl } = await import('../src/game/ctrl');
    let renders = 0;
    const ctrl = new GameCtrl({ id: 'g', token: 't' }, () => (renders += 1));
    ctrl.dispatch(stateMsg());
    for (let n = 1; n <= 1000; n += 1) {
      ctrl.dispatch({
        type: 'event', n, event: { at: n, by: 'white', offer: 'draw' }, rulings: [{ at: n, event: n, kind: 'refused', ruling: 'no', rule: 'uscf-2020 11' }],
        clock: { white_ms: 300_000 - n, black_ms: 300_000, running: 'white' }, result: '*',
        update: { reason: null, rule: null, fen: START, moves_from: 0, moves: [], to_move: 'white', running: 'white', pending: null, called: null, flags: [], board_move: null, claims: { white: [], black: [] }, actions: actions(), draw_offer: null, server_now: n },
      });
    }
    expect(renders).toBe(0);
    expect(frames).toHaveLength(1);
    frames.shift()!();
    expect(renders).toBe(1);
    expect(ctrl.model.state?.n).toBe(1000);
    expect(ctrl.model.state?.rulings).toHaveLength(1000);
    expect(ctrl.me()).toBe('white');
  });

  it('steps through the move list and back to live', async () => {
    const { GameCtrl } = await import('../src/game/ctrl');
    const ctrl = new GameCtrl({ id: 'g', token: null }, () => {});
    const s = stateMsg() as ServerMessage & { moves: unknown[] };
    s.moves = [
      { uci: 'e2e4', san: 'e4', by: 'white', at: 1, fen: 'a' },
      { uci: 'e7e5', san: 'e5', by: 'black', at: 2, fen: 'b' },
    ];
    ctrl.dispatch(s);
    const ok = ctrl.key('ArrowLeft', () => '', () => {}, () => '');
    expect(ok).toBe(true);
    expect(ctrl.model.ui.viewPly).toBe(1);
    ctrl.key('ArrowLeft', () => '', () => {}, () => '');
    ctrl.key('ArrowLeft', () => '', () => {}, () => '');
    expect(ctrl.model.ui.viewPly).toBe(0);
    ctrl.key('End', () => '', () => {}, () => '');
    expect(ctrl.model.ui.viewPly).toBeNull();
    ctrl.key('x', () => '', () => {}, () => '');
    expect(ctrl.model.ui.flipped).toBe(true);
  });
});
