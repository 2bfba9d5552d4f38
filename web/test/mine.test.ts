import { describe, expect, it } from 'vitest';
import { boardGamesText, entryOptionText, gameColour, matchText, myResultsText, outcomeOf, resultOf } from '../src/event/mine';
import { readTyped } from '../src/moveinput';

describe("results in a player's own terms", () => {
  it('reverses colours in game 2 and stores White first', () => {
    expect(gameColour('white', 0)).toBe('white');
    expect(gameColour('white', 1)).toBe('black');
    // "I won" twice by the board's White: 1-0 then 0-1.
    expect([resultOf('won', gameColour('white', 0)), resultOf('won', gameColour('white', 1))]).toEqual(['1-0', '0-1']);
    expect(resultOf('lost', 'white')).toBe('0-1');
    expect(resultOf('draw', 'black')).toBe('1/2');
    expect(outcomeOf('0-1', 'black')).toBe('won');
    expect(outcomeOf('+-', 'white')).toBeNull();
  });
  it('reads the results back per game with their colours', () => {
    expect(myResultsText(['1-0', '0-1'], 'white')).toBe('Game 1 (White): won; Game 2 (Black): won');
    expect(myResultsText(['1-0', null], 'black')).toBe('Game 1 (Black): lost; Game 2 (White): not in yet');
    expect(myResultsText(['1/2'], 'black')).toBe('draw (you had Black)');
    expect(myResultsText(['-+'], 'black')).toBe('won by forfeit (you had Black)');
  });
  it('writes a two-game board as its match score, never as a win and a loss', () => {
    expect(matchText(['1-0', '0-1'])).toBe('2–0');
    expect(matchText(['0-1', '1-0'])).toBe('0–2');
    expect(matchText(['1-0', '1/2'])).toBe('1½–½');
    expect(matchText(['1/2', '1/2'])).toBe('1–1');
    expect(matchText(['1-0', null])).toBe('1–0 after game 1');
    expect(matchText([null, null])).toBe('…');
    expect(matchText(['1-0'])).toBeNull();
    const b = { white: { name: 'Ann', number: 1 }, black: { name: 'Bo', number: 2 }, results: ['1-0', '1-0'] };
    expect(boardGamesText(b)).toBe('game 1: Ann (White) won; game 2: Ann (Black) lost');
    // The console's entry names who wins each game.
    expect(entryOptionText('1-0', b, 0, '1–0')).toBe('1–0 (Ann wins)');
    expect(entryOptionText('0-1', b, 1, '0–1')).toBe('0–1 (Ann wins)');
    expect(entryOptionText('1/2', b, 1, '½–½')).toBe('½–½');
  });
});

describe('readTyped: squares here, SAN for the server', () => {
  it('keeps squares as squares and sends the rest as written', () => {
    expect(readTyped('e2e4')).toEqual({ ok: true, uci: 'e2e4' });
    expect(readTyped('Nf3')).toEqual({ ok: true, san: 'Nf3' });
    expect(readTyped(' O-O ')).toEqual({ ok: true, san: 'O-O' });
    expect(readTyped('exd5')).toEqual({ ok: true, san: 'exd5' });
    expect(readTyped('e8=Q+')).toEqual({ ok: true, san: 'e8=Q+' });
  });
  it('refuses what cannot be a move before sending it', () => {
    expect(readTyped('').ok).toBe(false);
    expect(readTyped('e2e2').ok).toBe(false);
    expect(readTyped('<script>').ok).toBe(false);
    expect(readTyped('a very long text that is no move').ok).toBe(false);
  });
});
