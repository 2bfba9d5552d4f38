// Keyboard move input. Squares (`e2e4`, `e7e8q`, `e2-e4`) are a physical action and always
// work, legal or not, as on a real board. SAN (`Nf3`, `exd5`, `O-O`, `e8=Q`) is read
// against the legal destinations the server sends (online mode): the page knows no chess
// rules, it only matches the text against that list.
import { read as readFen } from 'chessground/fen';
import type { Color } from './protocol';

export type MoveParse = { ok: true; uci: string } | { ok: false; error: string };

const SQUARES = /^([a-h][1-8])\s*[-x:]?\s*([a-h][1-8])\s*=?([qrbn])?$/;
const SAN = /^([KQRBN])?([a-h])?([1-8])?(x|:)?([a-h][1-8])(?:=?([QRBNqrbn]))?[+#!?]*$/;
const ROLE_LETTER: Record<string, string> = { K: 'king', Q: 'queen', R: 'rook', B: 'bishop', N: 'knight' };

export interface MoveContext {
  /** The physical board (FEN; only the placement is read). */
  fen: string;
  /** Legal moves from the server (online mode), square → squares. */
  dests?: Record<string, string[]> | null;
  /** The colour the player moves. */
  color: Color;
}

export function parseMoveInput(text: string, ctx: MoveContext): MoveParse {
  const raw = text.trim();
  if (raw === '') return { ok: false, error: 'type a move, e.g. e2e4 or Nf3' };
  const sq = SQUARES.exec(raw.toLowerCase());
  if (sq) {
    if (sq[1] === sq[2]) return { ok: false, error: `${sq[1]}${sq[2]}: from and to are the same square` };
    return { ok: true, uci: sq[1] + sq[2] + (sq[3] ?? '') };
  }
  if (!ctx.dests) {
    return {
      ok: false,
      error: `"${raw}" is not a move in squares; type from and to squares, e.g. e2e4 (SAN needs the legal moves the server sends in online mode)`,
    };
  }
  const pieces = readFen(ctx.fen);
  const castle = /^(?:o-o-o|0-0-0|o-o|0-0)[+#]?$/i.exec(raw);
  if (castle) {
    const long = /^(?:o-o-o|0-0-0)/i.test(raw);
    const kingSq = [...pieces.entries()].find(([, p]) => p.role === 'king' && p.color === ctx.color)?.[0];
    if (!kingSq) return { ok: false, error: 'no king of yours on the board to castle with' };
    const targets = ctx.dests[kingSq] ?? [];
    const rank = kingSq[1];
    const wanted = long ? [`c${rank}`, `a${rank}`] : [`g${rank}`, `h${rank}`];
    for (const w of wanted) {
      if (targets.includes(w)) return { ok: true, uci: kingSq + w };
    }
    return { ok: false, error: `${long ? 'O-O-O' : 'O-O'} is not a legal move now` };
  }
  const m = SAN.exec(raw);
  if (!m) return { ok: false, error: `"${raw}" is neither squares (e2e4) nor SAN (Nf3)` };
  const [, letter, fromFile, fromRank, , to, promo] = m;
  const role = letter ? ROLE_LETTER[letter] : 'pawn';
  const candidates: string[] = [];
  for (const [from, tos] of Object.entries(ctx.dests)) {
    if (!tos.includes(to)) continue;
    const p = pieces.get(from as never);
    if (!p || p.color !== ctx.color || p.role !== role) continue;
    if (fromFile && from[0] !== fromFile) continue;
    if (fromRank && from[1] !== fromRank) continue;
    if (role === 'pawn' && !fromFile && from[0] !== to[0]) continue;
    candidates.push(from);
  }
  if (candidates.length === 0) return { ok: false, error: `${raw}: no legal move matches` };
  if (candidates.length > 1) return { ok: false, error: `${raw} is ambiguous: ${candidates.map((c) => c + to).join(' or ')}` };
  const lastRank = ctx.color === 'white' ? '8' : '1';
  if (role === 'pawn' && to[1] === lastRank && !promo) return { ok: false, error: `${raw}: name the promotion piece, e.g. ${to}=Q` };
  return { ok: true, uci: candidates[0] + to + (promo ? promo.toLowerCase() : '') };
}
