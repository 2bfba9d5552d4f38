// The wire contract of `flagfall serve` (docs/protocol.md), as the page reads it.
// The page computes nothing about chess: everything below comes from the server.

export type Color = 'white' | 'black';
export type Role = Color | 'director' | 'spectator';

export const other = (c: Color): Color => (c === 'white' ? 'black' : 'white');

export interface ClockState {
  white_ms: number;
  black_ms: number;
  running: Color | null;
}

export interface Ruling {
  at: number;
  event: number;
  kind: string;
  ruling: string;
  rule: string | null;
  player?: Color;
  time?: { color: Color; ms: number };
}

export interface MoveEntry {
  uci: string;
  san?: string | null;
  by: Color;
  at: number;
  /** The physical board after the move (FEN), legal or not. */
  fen: string;
}

/** A move on the board not yet completed by a press. */
export interface BoardMove {
  uci: string;
  by: Color;
}

export interface Recommendation {
  grant: boolean;
  rule: string;
  reasons: string[];
}

/** A claim waiting for the director, with the assistant's recommendation. */
export interface Pending {
  claimant: Color;
  claim: string;
  recommendation: Recommendation | null;
}

/** A player's call for the director, waiting for the director (the clock is stopped). */
export interface Called {
  by: Color;
  at: number;
  reason?: string | null;
}

export interface GameSetup {
  rules: string;
  time_control: string;
  fen?: string;
  white?: string;
  black?: string;
  director?: boolean;
  auto_flag?: boolean;
  [k: string]: unknown;
}

export interface GameState {
  id: string;
  setup: GameSetup;
  mode: 'otb' | 'online';
  result: string;
  reason: string | null;
  rule: string | null;
  clock: ClockState;
  fen: string;
  rulings: Ruling[];
  moves: MoveEntry[];
  to_move: Color;
  running: Color | null;
  pending: Pending | null;
  /** A player's call for the director while it waits. */
  called: Called | null;
  flags: Color[];
  board_move: BoardMove | null;
  claims: { white: string[]; black: string[] };
  draw_offer: Color | null;
  n: number;
  server_now: number;
  dests?: Record<string, string[]>;
  /** What this socket's token acts as (the `state` message). */
  role?: Role;
}

export interface StoredEvent {
  at: number;
  by?: Role;
  id?: string;
  [k: string]: unknown;
}

/**
 * What an event changes in the state (docs/protocol.md): every field here replaces its own,
 * `moves` replaces the list from `moves_from` on; the event's rulings are appended.
 */
export interface StateUpdate {
  reason: string | null;
  rule: string | null;
  fen: string;
  moves_from: number;
  moves: MoveEntry[];
  to_move: Color;
  running: Color | null;
  pending: Pending | null;
  called: Called | null;
  flags: Color[];
  board_move: BoardMove | null;
  claims: { white: string[]; black: string[] };
  draw_offer: Color | null;
  server_now: number;
  dests?: Record<string, string[]>;
  [k: string]: unknown;
}

export interface EventMessage {
  type: 'event';
  n: number;
  event: StoredEvent;
  rulings: Ruling[];
  clock: ClockState;
  result: string;
  update: StateUpdate;
  id?: string;
}

export type ServerMessage =
  | ({ type: 'state' } & GameState)
  | EventMessage
  | { type: 'refused'; id?: string; reason: string; rule?: string | null }
  | { type: 'error'; id?: string; message: string }
  | { type: 'flag'; color: Color; claims: { white: string[]; black: string[] } }
  | { type: 'pong'; ping: number; [k: string]: unknown };

/** Parse one text frame from the server; anything unexpected is an Error naming what is wrong. */
export function parseServerMessage(text: string): ServerMessage {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new Error('server frame is not JSON');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('server frame is not an object');
  const t = (v as { type?: unknown }).type;
  if (typeof t !== 'string') throw new Error('server frame has no "type"');
  switch (t) {
    case 'state':
    case 'event':
    case 'refused':
    case 'error':
    case 'flag':
    case 'pong':
      return v as ServerMessage;
    default:
      throw new Error(`unknown server message type "${t}"`);
  }
}

export function boardMoveUci(bm: BoardMove | null | undefined): string | null {
  return bm?.uci ?? null;
}

/** Human names of the claim kinds of the game-script format. */
export const CLAIM_LABELS: Record<string, string> = {
  illegal: 'Claim illegal move',
  flag: 'Claim flag',
  both_flags: 'Both flags down',
  threefold: 'Claim threefold',
  fifty: 'Claim fifty moves',
  ilc: 'Claim ILC',
  draw_position: 'Claim drawn position',
};

/** How a claim reads in a sentence ("White claimed an illegal move"). */
export const CLAIM_NOUNS: Record<string, string> = {
  illegal: 'an illegal move',
  flag: 'a fallen flag',
  both_flags: 'both flags down',
  threefold: 'a threefold repetition',
  fifty: 'the fifty-move rule',
  ilc: 'insufficient losing chances',
  draw_position: 'a drawn position',
};

export const colorName = (c: Color): string => (c === 'white' ? 'White' : 'Black');

export const CLAIM_KEYS: Record<string, string> = {
  illegal: 'i',
  flag: 'f',
  both_flags: 'b',
  threefold: 't',
  fifty: 'y',
  ilc: 'l',
  draw_position: 'w',
};

export const REASON_TEXT: Record<string, string> = {
  checkmate: 'checkmate',
  resignation: 'resignation',
  time_forfeit: 'time forfeit (flag)',
  illegal_move: 'illegal move',
  stalemate: 'stalemate',
  agreement: 'agreement',
  both_flags: 'both flags down',
  insufficient_material: 'insufficient mating material',
  repetition: 'threefold repetition',
  fifty_moves: 'fifty-move rule',
  ilc: 'insufficient losing chances',
  draw_position: 'claimable drawn position',
  dead_position: 'dead position',
  illegal_position: 'illegal position',
  penalty_forfeit: 'forfeit by penalty',
  director: "director's decision",
};
