// The page's game model: a pure reducer from server messages, plus what the page derives
// for display. Every chess fact comes from the server's state.
import { read as readFen } from 'chessground/fen';
import { boardMoveUci, CLAIM_NOUNS, colorName, other, type Called, type Color, type EventMessage, type GameState, type MoveEntry, type PlayerActions, type RematchView, type Role, type Ruling, type ServerMessage } from './protocol';

export interface Notice {
  tone: 'info' | 'good' | 'bad';
  text: string;
  rule?: string | null;
}

export interface Model {
  state: GameState | null;
  role: Role;
  notice: Notice | null;
  /** Sounds the messages since the last frame call for (the page plays and clears them). */
  sounds: Sound[];
  /** The page's own view state, changed only by local actions through `reduce`. */
  ui: Ui;
}

export interface Ui {
  /** The move list position shown on the board: null is live, k the board after k moves. */
  viewPly: number | null;
  /** The board turned around (players and spectators). */
  flipped: boolean;
  /** "Resign" was clicked once: the next click resigns. */
  confirmResign: boolean;
  /** A pawn move to the last rank waiting for the promotion piece. */
  promotion: { orig: string; dest: string } | null;
  /** Refused (or cancelled) moves of this page: each puts the board back as the server has it. */
  refusals: number;
  /** Where the rematch stands once the game is over (null before, or for a spectator). */
  rematch: RematchView | null;
}

export type Sound = 'move' | 'capture' | 'flag' | 'ruling';

/** What the page itself does to its model (the server's messages are the other half). */
export type LocalAction =
  | { type: 'local:notice'; notice: Notice | null }
  | { type: 'local:view'; ply: number | null }
  | { type: 'local:flip' }
  | { type: 'local:confirm-resign'; on: boolean }
  | { type: 'local:promotion'; ask: { orig: string; dest: string } | null; cancelled?: boolean }
  | { type: 'local:sounds-played' }
  | { type: 'local:rematch'; view: RematchView | null };

export function initialModel(role: Role): Model {
  return { state: null, role, notice: null, sounds: [], ui: { viewPly: null, flipped: false, confirmResign: false, promotion: null, refusals: 0, rematch: null } };
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
  const what = CLAIM_NOUNS[claim] ?? claim;
  for (const r of rulings) {
    const text = rulingText(r.ruling);
    if (r.kind === 'claim_upheld') return { tone: 'good', text: `Your claim of ${what} was right. ${text}`, rule: r.rule };
    if (r.kind === 'claim_rejected') return { tone: 'bad', text: `Your claim of ${what} was wrong. ${text}`, rule: r.rule };
    if (r.kind === 'claim_pending') return { tone: 'info', text: `Your claim of ${what} waits for the director. ${text}`, rule: r.rule };
    if (r.kind === 'refused') return { tone: 'bad', text: `Your claim of ${what} was refused. ${text}`, rule: r.rule };
    if (r.kind === 'result') {
      const won = r.player === undefined ? null : r.player === me;
      const tone = won === false ? 'bad' : 'good';
      return { tone, text: `Your claim of ${what}: ${text}`, rule: r.rule };
    }
  }
  return null;
}

/**
 * The state after event `msg.n`, from the state after event `msg.n - 1`: the update's
 * fields replace their own, the moves are spliced at `moves_from`, the rulings appended.
 * The director's offences come only when they changed: absent, the previous ones stay.
 */
export function applyEvent(prev: GameState, msg: EventMessage): GameState {
  const { moves_from, moves, ...fields } = msg.update;
  const director = fields.actions.director;
  const offences = director.offences ?? prev.actions.director.offences;
  return {
    ...prev,
    ...fields,
    actions: { ...fields.actions, director: { ...director, offences } },
    moves: [...prev.moves.slice(0, moves_from), ...moves],
    clock: msg.clock,
    result: msg.result,
    rulings: [...prev.rulings, ...msg.rulings],
    n: msg.n,
  };
}

/**
 * A ruling's text as a sentence: a capital first letter, the claim's own name not said twice
 * ("claim of an illegal move: ..."), an offence named in words.
 */
export function rulingText(text: string): string {
  let t = text
    .replace(/^claim of an illegal move: /, '')
    .replace(/^([a-z_]+) by (white|black|White|Black):/, (_m, kind: string, who: string) => {
      const what = kind === 'other' ? 'Offence' : kind.replace(/_/g, ' ');
      return `${what} by ${colorName(who.toLowerCase() as Color)}:`;
    });
  t = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

/** The one reducer of the game page: a server message or a local action gives the next model. */
export function reduce(model: Model, msg: ServerMessage | LocalAction): Model {
  const me: Color | null = model.role === 'white' || model.role === 'black' ? model.role : null;
  switch (msg.type) {
    case 'local:notice':
      return { ...model, notice: msg.notice };
    case 'local:view': {
      const total = model.state?.moves.length ?? 0;
      const ply = msg.ply === null || msg.ply >= total ? null : Math.max(0, msg.ply);
      return { ...model, ui: { ...model.ui, viewPly: ply } };
    }
    case 'local:flip':
      return { ...model, ui: { ...model.ui, flipped: !model.ui.flipped } };
    case 'local:confirm-resign':
      return { ...model, ui: { ...model.ui, confirmResign: msg.on } };
    case 'local:promotion':
      // A cancelled promotion puts the pawn back where the server has it.
      return { ...model, ui: { ...model.ui, promotion: msg.ask, refusals: model.ui.refusals + (msg.cancelled ? 1 : 0) } };
    case 'local:rematch':
      return { ...model, ui: { ...model.ui, rematch: msg.view } };
    case 'local:sounds-played':
      return model.sounds.length ? { ...model, sounds: [] } : model;
    case 'state': {
      const { type: _t, role, ...state } = msg;
      const nextRole: Role = role ?? model.role;
      const ply = model.ui.viewPly !== null && model.ui.viewPly < state.moves.length ? model.ui.viewPly : null;
      return { ...model, role: nextRole, state, sounds: [...model.sounds, ...movedSounds(model.state, state)], ui: { ...model.ui, viewPly: ply } };
    }
    case 'event': {
      const prev = model.state;
      // Only the next event applies: an older one (a retried id answered again) is in
      // the state already, and after a gap the connection fetches a fresh state.
      const next = prev !== null && msg.n === prev.n + 1;
      const state = next ? applyEvent(prev, msg) : prev;
      if (!next || !state) return model;
      const sounds = [...model.sounds, ...movedSounds(prev, state)];
      if (msg.rulings.some((r) => r.kind !== 'refused')) sounds.push('ruling');
      let notice = model.notice;
      const ev = msg.event;
      if (me && ev.by === me && typeof ev.claim === 'string') {
        notice = claimFeedback(ev.claim, msg.rulings, me) ?? notice;
      } else if (me && ev.by === other(me) && typeof ev.claim === 'string') {
        const r = msg.rulings.find((x) => x.kind !== 'refused');
        if (r) notice = { tone: 'info', text: `${colorName(ev.by)} claimed ${CLAIM_NOUNS[ev.claim] ?? ev.claim}. ${rulingText(r.ruling)}`, rule: r.rule };
      } else if (me && ev.by === other(me) && ev.decline === 'draw' && prev.draw_offer === me) {
        notice = { tone: 'info', text: `${colorName(other(me))} declined your draw offer.` };
      } else if (me && ev.by === me) {
        notice = null;
      }
      return { ...model, state, notice, sounds };
    }
    case 'refused':
      return { ...model, notice: { tone: 'bad', text: `Refused: ${msg.reason}`, rule: msg.rule ?? null }, ui: { ...model.ui, refusals: model.ui.refusals + 1, promotion: null } };
    case 'error':
      return { ...model, notice: { tone: 'bad', text: `Not sent: ${msg.message}` }, ui: { ...model.ui, refusals: model.ui.refusals + 1 } };
    case 'flag': {
      if (!model.state) return model;
      const flags = model.state.flags.includes(msg.color) ? model.state.flags : [...model.state.flags, msg.color];
      return { ...model, state: { ...model.state, flags, claims: msg.claims }, sounds: [...model.sounds, 'flag'] };
    }
    case 'pong':
    case 'reconnect': // the connection follows it (connection.ts); nothing to show
      return model;
  }
}

/** The claims the server says `role` may make now (nothing for spectators and the director). */
export function allowedClaims(state: GameState | null, role: Role): string[] {
  if (!state || (role !== 'white' && role !== 'black')) return [];
  return state.claims[role];
}

/** What the server says `role` may do now besides claims; null for spectators and the director. */
export function allowed(state: GameState | null, role: Role): PlayerActions | null {
  if (!state || (role !== 'white' && role !== 'black')) return null;
  return state.actions[role];
}

/** The rulings a player's page lists: a refusal is told to its sender alone, as a notice. */
export function shownRulings(state: GameState): Ruling[] {
  return state.rulings.filter((r) => r.kind !== 'refused');
}

export const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

/** The board after `ply` moves of the list (0: the game's start position). */
export function fenAfter(state: GameState, ply: number): string {
  if (ply <= 0) return state.setup.fen ?? START_FEN;
  return state.moves[Math.min(ply, state.moves.length) - 1]?.fen || state.fen;
}

const LETTER: Record<string, string> = { king: 'K', queen: 'Q', rook: 'R', bishop: 'B', knight: 'N', pawn: '' };

/**
 * A move as a scoresheet carries it when SAN cannot be had: the piece letter from the board
 * before it and both squares (`Ng1-f3`, `e4xd5`, `e7-e8=Q`). Read off the board, no rules.
 */
export function longNotation(uci: string, before: string): string {
  const from = uci.slice(0, 2);
  const to = uci.slice(2, 4);
  const promo = uci.slice(4).toUpperCase();
  let pieces: ReturnType<typeof readFen>;
  try {
    pieces = readFen(before);
  } catch {
    return `${from}-${to}${promo ? `=${promo}` : ''}`;
  }
  const p = pieces.get(from as never);
  const taken = pieces.get(to as never);
  const sep = taken && p && taken.color !== p.color ? 'x' : '-';
  return `${p ? LETTER[p.role] : ''}${from}${sep}${to}${promo ? `=${promo}` : ''}`;
}

export interface MoveCell {
  text: string;
  /** The move's index in the list (ply = index + 1 shows the board after it). */
  index: number;
}

export interface MoveRow {
  no: number;
  white?: MoveCell;
  black?: MoveCell;
}

/**
 * The moves as rows "1. e4 e5". Online every move is legal and shows in SAN. Over the
 * board every move shows the same way, piece letter and squares, legal or not: the list
 * gives away nothing the board does not. A move with no SAN is marked `?` only once the
 * game is over (a claim or a ruling made its status known).
 */
export function moveRows(state: GameState | null): MoveRow[] {
  if (!state) return [];
  const rows: MoveRow[] = [];
  let no = state.setup.fen ? Number(state.setup.fen.split(' ')[5]) || 1 : 1;
  let row: MoveRow | null = null;
  const over = state.result !== '*';
  state.moves.forEach((m: MoveEntry, i) => {
    let text: string;
    if (state.mode === 'online' && m.san) text = m.san;
    else {
      text = longNotation(m.uci, fenAfter(state, i));
      if (over && !m.san) text += '?';
    }
    if (m.by === 'white' || !row || row.black !== undefined) {
      if (row) {
        rows.push(row);
        no = row.no + 1;
      }
      row = { no };
    }
    if (m.by === 'white') row.white = { text, index: i };
    else row.black = { text, index: i };
  });
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

/**
 * Whether the side to move is in check, as the server's SAN of the last completed move says;
 * online only (over the board a highlight would tell whether the last move was legal).
 */
export function checkColor(state: GameState | null): Color | null {
  if (!state || state.board_move || state.mode !== 'online') return null;
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
  const who = colorName(c.by);
  const why = c.reason ? `: “${c.reason}”` : '';
  return `${who} called the director${why}. The clock is stopped until the director comes.`;
}

/** Whether `role` may call the director now, as the server says. */
export function canCallDirector(state: GameState | null, role: Role): boolean {
  return allowed(state, role)?.call_director ?? false;
}
