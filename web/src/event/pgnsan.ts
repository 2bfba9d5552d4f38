// A game's moves in SAN read from the PGN the server writes (pure: the console's dispute
// cards use it, web/test/projector.test.ts tests it).

/**
 * The SAN moves of a game's PGN as the server writes it (`/api/games/{id}/pgn`): the
 * movetext's moves, comments, move numbers and the result left out. They are the game's
 * moves from the start for as long as they are legal chess (docs/game-script.md: the
 * SAN ends at an illegal move that stood).
 */
export function pgnSans(pgn: string): string[] {
  const movetext = pgn
    .split('\n')
    .filter((l) => !l.startsWith('['))
    .join(' ')
    .replace(/\{[^}]*\}/g, ' ');
  return movetext.split(/\s+/).filter((t) => t && !/^\d+\.+$/.test(t) && !['*', '1-0', '0-1', '1/2-1/2'].includes(t));
}

/** A game's record with each move's SAN from its PGN where the record has none (an over-the-board game the director reads). */
export function withSan<T extends { moves: { san?: string | null }[] }>(record: T, sans: string[]): T {
  return { ...record, moves: record.moves.map((m, i) => (m.san || i >= sans.length ? m : { ...m, san: sans[i] })) };
}
