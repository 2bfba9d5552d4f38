// What the server's state carries that most unit tests do not look at: the allowed
// actions (as the server computes them for a fresh over-the-board game) and the
// promotion ranks; a game's whole state.
import type { Actions, GameState, PlayerActions } from '../src/protocol';

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

/** A game's state as `GET /api/games/{id}` and the socket's `state` carry it: a new game at the start. */
export function gameState(over: Partial<GameState> = {}): GameState {
  return {
    id: 'g1',
    setup: { rules: 'uscf-2020', time_control: 'G/3;d0' },
    mode: 'otb',
    result: '*',
    reason: null,
    rule: null,
    clock: { white_ms: 180_000, black_ms: 180_000, running: null },
    fen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1',
    rulings: [],
    moves: [],
    to_move: 'white',
    running: null,
    pending: null,
    called: null,
    flags: [],
    board_move: null,
    claims: { white: [], black: [] },
    actions: actions(),
    draw_offer: null,
    n: 0,
    server_now: 0,
    promotion_ranks: PROMOTION_RANKS,
    ...over,
  };
}
