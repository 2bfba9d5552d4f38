// What the server's state carries that most unit tests do not look at: the allowed
// actions (as the server computes them for a fresh over-the-board game) and the
// promotion ranks.
import type { Actions, PlayerActions } from '../src/protocol';

export function player(over: Partial<PlayerActions> = {}): PlayerActions {
  return { move: false, press: false, take_back: false, move_and_press: true, offer_draw: true, answer_draw: false, resign: true, call_director: true, ...over };
}

export function actions(over: Partial<Actions> = {}): Actions {
  return {
    white: player({ move: true, press: true }),
    black: player(),
    director: { stop_clock: true, start_clock: false, add_time: true, ruling: false, declare: true, offences: [] },
    ...over,
  };
}

export const PROMOTION_RANKS = { white: '8', black: '1' };
