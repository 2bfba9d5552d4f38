// The wire contract of `flagfall serve` (docs/protocol.md). The types are generated from
// the Rust types of crates/flagfall-protocol (wire.ts, by ts-rs); this file names them as
// the page reads them and holds the page's words for them.
import type { BoardMove, CreateGame, MoveView, PendingClaim, ServerMsg } from './wire';

export type {
  Actions,
  BoardMove,
  Called,
  ClockState,
  Color,
  ComputerConfig,
  CreateAnswer,
  CreateGame,
  DirectorActions,
  GameState,
  Mode,
  NextPenalty,
  OffenceOption,
  PlayerActions,
  RematchView,
  Role,
  Ruling,
  Rulesets,
  RulesetInfo,
  StateUpdate,
} from './wire';
import type { Color } from './wire';

export const other = (c: Color): Color => (c === 'white' ? 'black' : 'white');

export type MoveEntry = MoveView;
export type Pending = PendingClaim;
export type GameSetup = CreateGame;
export type ServerMessage = ServerMsg;
export type EventMessage = Extract<ServerMsg, { type: 'event' }>;
export type StoredEvent = EventMessage['event'];

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
    case 'reconnect':
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
