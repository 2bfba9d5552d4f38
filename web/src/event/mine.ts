// Results in a player's own terms (issue 31): a board's results are stored per game with
// that game's White first ("1-0" White won), and a two-game pairing (double Swiss,
// round-robin matches) swaps colours in game 2. A player reads "I won", "Game 2 (Black):
// won"; a board of two games reads as its match score ("2–0"), never as "1–0 0–1", which
// looks like a win and a loss. Pure: no DOM, no chess.
import type { BoardView, Color } from '../wire';

export type Outcome = 'won' | 'lost' | 'draw';

export const colourWord = (c: Color): string => (c === 'white' ? 'White' : 'Black');

/** The colour a player of board colour `colour` (game 1's) has in game `g` (0-based): swapped in each second game. */
export function gameColour(colour: Color, g: number): Color {
  if (g % 2 === 0) return colour;
  return colour === 'white' ? 'black' : 'white';
}

/** The stored result (White's first) of an outcome for the player of colour `c`. */
export function resultOf(outcome: Outcome, c: Color): string {
  if (outcome === 'draw') return '1/2';
  return (outcome === 'won') === (c === 'white') ? '1-0' : '0-1';
}

/** The outcome a stored result (`1-0`, `+-`, ...) is for the player of colour `c`, in words; null: not in yet. */
export function outcomeWords(result: string | null | undefined, c: Color): string | null {
  const w = c === 'white';
  switch (result) {
    case null:
    case undefined:
    case 'pending':
      return null;
    case '1-0':
      return w ? 'won' : 'lost';
    case '0-1':
      return w ? 'lost' : 'won';
    case '1/2':
      return 'draw';
    case '+-':
      return w ? 'won by forfeit' : 'lost by forfeit';
    case '-+':
      return w ? 'lost by forfeit' : 'won by forfeit';
    case '--':
      return 'double forfeit';
    default:
      return result;
  }
}

/** The outcome chosen in the report form that a stored result is for the player of colour `c` (null: none of I won / I lost / draw). */
export function outcomeOf(result: string | null | undefined, c: Color): Outcome | null {
  const w = outcomeWords(result, c);
  return w === 'won' || w === 'lost' || w === 'draw' ? w : null;
}

/** A player's results, game by game with that game's colour: "Game 1 (White): won; Game 2 (Black): …". */
export function myResultsText(results: (string | null)[], colour: Color): string {
  if (results.length === 1) {
    const w = outcomeWords(results[0], colour);
    return w ? `${w} (you had ${colourWord(colour)})` : 'not in yet';
  }
  return results.map((r, g) => `Game ${g + 1} (${colourWord(gameColour(colour, g))}): ${outcomeWords(r, gameColour(colour, g)) ?? 'not in yet'}`).join('; ');
}

/** The points of a stored result for White and Black of that game (null: not in yet). */
function points(r: string | null): [number, number] | null {
  switch (r) {
    case '1-0':
    case '+-':
      return [1, 0];
    case '0-1':
    case '-+':
      return [0, 1];
    case '1/2':
      return [0.5, 0.5];
    case '--':
      return [0, 0];
    default:
      return null;
  }
}

const half = (v: number): string => (v === Math.floor(v) ? String(v) : v < 1 ? '½' : `${Math.floor(v)}½`);

/**
 * A board's match score, from its first-named player (the board's White, who has White in
 * game 1 and Black in game 2) to the second: `{ left: 2, right: 0, played: 2 }`; null for a
 * one-game board or before any game is in.
 */
export function matchScore(results: (string | null)[]): { left: number; right: number; played: number } | null {
  if (results.length < 2) return null;
  let left = 0;
  let right = 0;
  let played = 0;
  results.forEach((r, g) => {
    const p = points(r);
    if (!p) return;
    played += 1;
    const [w, b] = p;
    // The board's White has White in game 1 (0), Black in game 2 (1).
    if (g % 2 === 0) {
      left += w;
      right += b;
    } else {
      left += b;
      right += w;
    }
  });
  return played ? { left, right, played } : null;
}

/** A two-game board's match score as a person reads it: "2–0", "1½–½", "1–0 after game 1"; null for a one-game board. */
export function matchText(results: (string | null)[]): string | null {
  if (results.length < 2) return null;
  const m = matchScore(results);
  if (!m) return '…';
  const score = `${half(m.left)}–${half(m.right)}`;
  return m.played === results.length ? score : `${score} after game ${m.played}`;
}

/** Each game of a board with who had White: "game 1: Ann (White) won; game 2: Ann (Black) won". */
export function boardGamesText(b: Pick<BoardView, 'white' | 'black' | 'results'>): string {
  return b.results
    .map((r, g) => {
      const first = b.white.name;
      const c = gameColour('white', g);
      const w = outcomeWords(r, c);
      return `game ${g + 1}: ${first} (${colourWord(c)}) ${w === 'draw' ? 'drew' : (w ?? 'not in yet')}`;
    })
    .join('; ');
}

/** A two-game board on the console: the match score and each game with who had White ("2–0 (game 1: ...)"); "…" before any game is in. */
export function consoleMatchText(b: Pick<BoardView, 'white' | 'black' | 'results'>): string {
  if (!b.results.some((r) => r !== null)) return '…';
  return `${matchText(b.results)} (${boardGamesText(b)})`;
}

/** A result offered for game `g` of a two-game board on the console, with who wins it: "0–1 (Ann wins)" for game 2, Ann the board's White. */
export function entryOptionText(x: string, b: Pick<BoardView, 'white' | 'black'>, g: number, text: string): string {
  const [w, bl] = g % 2 === 0 ? [b.white.name, b.black.name] : [b.black.name, b.white.name];
  if (x === '1-0' || x === '+-') return `${text} (${w} wins)`;
  if (x === '0-1' || x === '-+') return `${text} (${bl} wins)`;
  return text;
}
