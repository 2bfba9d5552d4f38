// Keyboard move input. Squares (`e2e4`, `e7e8q`, `e2-e4`) are a physical action and always
// work, legal or not, as on a real board. A typed move in SAN (`Nf3`, `exd5`, `O-O`,
// `e8=Q`) is sent as it is, for the server to read against the position (`readTyped`,
// docs/protocol.md). A claim's intended move (`parseMoveInput`) is compared with the
// server's list of the legal moves with their SAN (`san`, online mode): the page resolves
// nothing itself.

export type MoveParse = { ok: true; uci: string } | { ok: false; error: string };

const SQUARES = /^([a-h][1-8])\s*[-x:]?\s*([a-h][1-8])\s*=?([qrbn])?$/;

/** The text of a SAN without what does not tell moves apart: check marks, `x`, `=`, zeros for O. */
function key(san: string): string {
  return san
    .trim()
    .replace(/[+#!?]+$/, '')
    .replace(/0/g, 'O')
    .replace(/[x:=]/g, '')
    .replace(/^o-o/i, 'O-O');
}

/**
 * A typed move as UCI. `san`: the server's legal moves, UCI to SAN (online), or null (over
 * the board, where only squares are read).
 */
export function parseMoveInput(text: string, san: Record<string, string> | null | undefined): MoveParse {
  const raw = text.trim();
  if (raw === '') return { ok: false, error: 'type a move, e.g. e2e4 or Nf3' };
  const sq = SQUARES.exec(raw.toLowerCase());
  if (sq) {
    if (sq[1] === sq[2]) return { ok: false, error: `${sq[1]}${sq[2]}: from and to are the same square` };
    return { ok: true, uci: sq[1] + sq[2] + (sq[3] ?? '') };
  }
  if (!san) {
    return {
      ok: false,
      error: `"${raw}" is not a move in squares; type from and to squares, e.g. e2e4 (SAN needs the legal moves the server sends in online mode)`,
    };
  }
  const want = key(raw);
  const found = Object.entries(san).filter(([, s]) => key(s) === want);
  if (found.length === 1) return { ok: true, uci: found[0][0] };
  // A pawn reaching the last rank without a piece named: the server lists one move a piece.
  const promo = Object.entries(san).filter(([, s]) => key(s).replace(/[QRBN]$/, '') === want && /=[QRBN]/.test(s));
  if (promo.length > 0) return { ok: false, error: `${raw}: name the promotion piece, e.g. ${promo[0][1].replace(/[+#]$/, '')}` };
  return { ok: false, error: `${raw} is not a legal move now` };
}

/** A move typed in the move box: squares (any move, legal or not), or text for the server to read as SAN. */
export type Typed = { ok: true; uci: string } | { ok: true; san: string } | { ok: false; error: string };

/**
 * The move box's text as the page sends it: squares as UCI; anything else that may be a
 * move as written (`Nf3`, `O-O`, `exd5`, `e8=Q`) as `{"san": ...}`, which the server reads
 * against the position (docs/protocol.md). The page resolves no SAN itself.
 */
export function readTyped(text: string): Typed {
  const raw = text.trim();
  if (raw === '') return { ok: false, error: 'type a move, e.g. Nf3, O-O or e2e4' };
  const sq = SQUARES.exec(raw.toLowerCase());
  if (sq) {
    if (sq[1] === sq[2]) return { ok: false, error: `${sq[1]}${sq[2]}: from and to are the same square` };
    return { ok: true, uci: sq[1] + sq[2] + (sq[3] ?? '') };
  }
  if (raw.length > 16 || !/^[A-Za-z0-9=+#!?:\-. ]+$/.test(raw)) return { ok: false, error: `"${raw.slice(0, 20)}" is not a move: type one like Nf3, O-O or e2e4` };
  return { ok: true, san: raw };
}
