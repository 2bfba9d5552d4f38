// The page's game model: a pure reducer from server messages, plus what the page derives
// for display. Every chess fact comes from the server's state.
import { read as readFen } from 'chessground/fen';
import { boardMoveUci, other, type Called, type Color, type EventMessage, type GameState, type Role, type Ruling, type ServerMessage } from './protocol';

export interface Notice {
  tone: 'info' | 'good' | 'bad';
  text: string;
  rule?: string | null;
}

export interface Model {
  state: GameState | null;
  role: Role;
  notice: Notice | null;
  /** Colours whose flag the server announced fell (kept until a state says otherwise). */
  flagged: Color[];
  /** Sounds the last message calls for (the page plays and clears them). */
  sounds: Sound[];
}

export type Sound = 'move' | 'capture' | 'flag' | 'ruling';

export function initialModel(role: Role): Model {
  return { state: null, role, notice: null, flagged: [], sounds: [] };
}

function pieceCount(fen: string): number {
  try {
    return readFen(fen).size;
  } catch {
    return 0;
  }
}

function movedSounds(prev: GameState | null, next: GameState): Sound[] {
  if (!prev) return [];
  const moved = next.moves.length > prev.moves.length || (boardMoveUci(next.board_move) !== null && boardMoveUci(next.board_move) !== boardMoveUci(prev.board_move));
  if (!moved) return [];
  return [pieceCount(next.fen) < pieceCount(prev.fen) ? 'capture' : 'move'];
}

/** What a ruling means to the player who made the claim it decides (training feedback). */
export function claimFeedback(claim: string, rulings: Ruling[], me: Color): Notice | null {
  for (const r of rulings) {
    if (r.kind === 'claim_upheld') return { tone: 'good', text: `Your ${claim} claim was right: ${r.ruling}`, rule: r.rule };
    if (r.kind === 'claim_rejected') return { tone: 'bad', text: `Your ${claim} claim was wrong: ${r.ruling}`, rule: r.rule };
    if (r.kind === 'claim_pending') return { tone: 'info', text: `Your ${claim} claim waits for the director: ${r.ruling}`, rule: r.rule };
    if (r.kind === 'refused') return { tone: 'bad', text: `Your ${claim} claim was refused: ${r.ruling}`, rule: r.rule };
    if (r.kind === 'result') {
      const won = r.player === undefined ? null : r.player === me;
      const tone = won === false ? 'bad' : 'good';
      return { tone, text: `Your ${claim} claim: ${r.ruling}`, rule: r.rule };
    }
  }
  return null;
}

/**
 * The state after event `msg.n`, from the state after event `msg.n - 1`: the update's
 * fields replace their own, the moves are spliced at `moves_from`, the rulings appended.
 */
export function applyEvent(prev: GameState, msg: EventMessage): GameState {
  const { moves_from, moves, ...fields } = msg.update;
  return {
    ...prev,
    ...fields,
    moves: [...prev.moves.slice(0, moves_from), ...moves],
    clock: msg.clock,
    result: msg.result,
    rulings: [...prev.rulings, ...msg.rulings],
    n: msg.n,
  };
}

export function reduce(model: Model, msg: ServerMessage): Model {
  const me: Color | null = model.role === 'white' || model.role === 'black' ? model.role : null;
  switch (msg.type) {
    case 'state': {
      const { type: _t, ...state } = msg;
      return { ...model, state: state as GameState, flagged: state.flags ?? [], sounds: movedSounds(model.state, state as GameState) };
    }
    case 'event': {
      const prev = model.state;
      // Only the next event applies: an older one (a retried id answered again) is in
      // the state already, and after a gap the connection fetches a fresh state.
      const next = prev !== null && msg.n === prev.n + 1;
      const state = next ? applyEvent(prev, msg) : prev;
      const sounds = next && state ? movedSounds(prev, state) : [];
      if (next && msg.rulings.some((r) => r.kind !== 'refused')) sounds.push('ruling');
      let notice = model.notice;
      const ev = msg.event;
      if (me && ev && ev.by === me && typeof ev.claim === 'string') {
        notice = claimFeedback(ev.claim, msg.rulings, me) ?? notice;
      } else if (me && ev && ev.by === other(me) && typeof ev.claim === 'string') {
        const r = msg.rulings.find((x) => x.kind !== 'refused');
        if (r) notice = { tone: 'info', text: `${ev.by} claimed ${ev.claim}: ${r.ruling}`, rule: r.rule };
      } else if (me && ev && ev.by === me) {
        notice = null;
      }
      const flagged = state?.flags ?? model.flagged;
      return { ...model, state, notice, flagged, sounds };
    }
    case 'refused':
      return { ...model, notice: { tone: 'bad', text: `Refused: ${msg.reason}`, rule: msg.rule ?? null }, sounds: [] };
    case 'error':
      return { ...model, notice: { tone: 'bad', text: `Not sent: ${msg.message}` }, sounds: [] };
    case 'flag': {
      const flagged = model.flagged.includes(msg.color) ? model.flagged : [...model.flagged, msg.color];
      const state = model.state ? { ...model.state, flags: model.state.flags.includes(msg.color) ? model.state.flags : [...model.state.flags, msg.color] } : null;
      return { ...model, state, flagged, sounds: ['flag'] };
    }
    case 'pong':
      return model;
  }
}

/** The claims the server says `me` may make now (nothing for spectators and the director). */
export function allowedClaims(state: GameState | null, role: Role): string[] {
  if (!state || (role !== 'white' && role !== 'black')) return [];
  if (state.result !== '*') return [];
  return state.claims?.[role] ?? [];
}

/** The moves as rows "1. e4 e5": SAN while legal, the physical move otherwise. */
export function moveRows(state: GameState | null): { no: number; white?: string; black?: string }[] {
  if (!state) return [];
  const rows: { no: number; white?: string; black?: string }[] = [];
  let no = state.setup.fen ? Number(state.setup.fen.split(' ')[5]) || 1 : 1;
  let row: { no: number; white?: string; black?: string } | null = null;
  for (const m of state.moves) {
    const text = m.san ? m.san : `${m.uci}?`;
    if (m.by === 'white' || !row || row.black !== undefined) {
      if (row) {
        rows.push(row);
        no = row.no + 1;
      }
      row = { no };
    }
    if (m.by === 'white') row.white = text;
    else row.black = text;
  }
  if (row) rows.push(row);
  return rows;
}

/** The last move to highlight: the move on the board if any, else the last completed one. */
export function lastMoveSquares(state: GameState | null): [string, string] | null {
  if (!state) return null;
  const uci = boardMoveUci(state.board_move) ?? state.moves[state.moves.length - 1]?.uci ?? null;
  if (!uci || uci.length < 4) return null;
  return [uci.slice(0, 2), uci.slice(2, 4)];
}

/** Whether the side to move is in check, as the server's SAN of the last completed move says. */
export function checkColor(state: GameState | null): Color | null {
  if (!state || state.board_move) return null;
  const last = state.moves[state.moves.length - 1];
  if (!last?.san) return null;
  return /[+#]$/.test(last.san) ? other(last.by) : null;
}

export function resultText(state: GameState): string | null {
  if (state.result === '*') return null;
  const who =
    state.result === '1-0' ? 'White wins' : state.result === '0-1' ? 'Black wins' : state.result === '1/2-1/2' ? 'Draw' : `Result ${state.result}`;
  return who;
}

/** The call for the director as every page shows it while it waits; null when none. */
export function calledText(state: GameState | null): string | null {
  const c: Called | null | undefined = state?.called;
  if (!c || state?.result !== '*') return null;
  const who = c.by === 'white' ? 'White' : 'Black';
  const why = c.reason ? `: “${c.reason}”` : '';
  return `${who} called the director${why}. The clock is stopped until the director comes.`;
}

/** Whether `role` may call the director now: a player, the game on, a director present, no call or claim waiting. */
export function canCallDirector(state: GameState | null, role: Role): boolean {
  if (!state || (role !== 'white' && role !== 'black')) return false;
  return state.result === '*' && state.setup.director !== false && !state.called && !state.pending;
}
