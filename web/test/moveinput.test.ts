import { describe, expect, it } from 'vitest';
import { parseMoveInput } from '../src/moveinput';

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
// Legal moves as the server sends them in online mode (start position, White).
const START_DESTS: Record<string, string[]> = {
  a2: ['a3', 'a4'], b2: ['b3', 'b4'], c2: ['c3', 'c4'], d2: ['d3', 'd4'],
  e2: ['e3', 'e4'], f2: ['f3', 'f4'], g2: ['g3', 'g4'], h2: ['h3', 'h4'],
  b1: ['a3', 'c3'], g1: ['f3', 'h3'],
};

describe('parseMoveInput, squares', () => {
  it('reads from and to squares in any common spelling, legal or not', () => {
    expect(parseMoveInput('e2e4', { fen: START, color: 'white' })).toEqual({ ok: true, uci: 'e2e4' });
    expect(parseMoveInput(' E2-E4 ', { fen: START, color: 'white' })).toEqual({ ok: true, uci: 'e2e4' });
    expect(parseMoveInput('e1e5', { fen: START, color: 'white' })).toEqual({ ok: true, uci: 'e1e5' });
    expect(parseMoveInput('e7e8q', { fen: START, color: 'white' })).toEqual({ ok: true, uci: 'e7e8q' });
    expect(parseMoveInput('e7e8=N', { fen: START, color: 'white' })).toEqual({ ok: true, uci: 'e7e8n' });
  });
  it('names what is wrong', () => {
    const r = parseMoveInput('e2e2', { fen: START, color: 'white' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/same square/);
    const r2 = parseMoveInput('', { fen: START, color: 'white' });
    expect(r2.ok).toBe(false);
  });
  it('asks for squares when the server sent no legal moves (OTB mode)', () => {
    const r = parseMoveInput('Nf3', { fen: START, color: 'white' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/e2e4/);
  });
});

describe('parseMoveInput, SAN against the server\'s legal moves', () => {
  it('finds the one legal move a SAN names', () => {
    expect(parseMoveInput('Nf3', { fen: START, color: 'white', dests: START_DESTS })).toEqual({ ok: true, uci: 'g1f3' });
    expect(parseMoveInput('e4', { fen: START, color: 'white', dests: START_DESTS })).toEqual({ ok: true, uci: 'e2e4' });
    expect(parseMoveInput('Nc3+', { fen: START, color: 'white', dests: START_DESTS })).toEqual({ ok: true, uci: 'b1c3' });
  });
  it('refuses a SAN that no legal move matches', () => {
    const r = parseMoveInput('Qh5', { fen: START, color: 'white', dests: START_DESTS });
    expect(r).toEqual({ ok: false, error: 'Qh5: no legal move matches' });
  });
  it('reports ambiguity and accepts a disambiguated SAN', () => {
    const fen = '4k3/8/8/8/8/8/8/R3K2R w - - 0 1';
    const dests = { a1: ['b1', 'c1', 'd1', 'a2'], h1: ['g1', 'f1', 'h2'], e1: ['d1', 'f1', 'd2', 'e2', 'f2'] };
    const amb = parseMoveInput('Rd1', { fen, color: 'white', dests: { ...dests, h1: ['g1', 'f1', 'e1', 'd1'] } });
    expect(amb.ok).toBe(false);
    if (!amb.ok) expect(amb.error).toMatch(/ambiguous/);
    expect(parseMoveInput('Rad1', { fen, color: 'white', dests: { ...dests, h1: ['d1'] } })).toEqual({ ok: true, uci: 'a1d1' });
  });
  it('reads pawn captures, promotions and castling from the legal list', () => {
    const fen = 'r3k2r/1P6/8/3p4/4P3/8/8/R3K2R w KQkq - 0 1';
    const dests = { e4: ['e5', 'd5'], b7: ['b8', 'a8'], e1: ['f1', 'g1', 'd1', 'c1'], a1: ['b1'], h1: ['g1'] };
    expect(parseMoveInput('exd5', { fen, color: 'white', dests })).toEqual({ ok: true, uci: 'e4d5' });
    expect(parseMoveInput('bxa8=Q', { fen, color: 'white', dests })).toEqual({ ok: true, uci: 'b7a8q' });
    expect(parseMoveInput('b8=N', { fen, color: 'white', dests })).toEqual({ ok: true, uci: 'b7b8n' });
    const noPromo = parseMoveInput('b8', { fen, color: 'white', dests });
    expect(noPromo.ok).toBe(false);
    expect(parseMoveInput('O-O', { fen, color: 'white', dests })).toEqual({ ok: true, uci: 'e1g1' });
    expect(parseMoveInput('0-0-0', { fen, color: 'white', dests })).toEqual({ ok: true, uci: 'e1c1' });
  });
  it('castles onto the rook when that is how the server lists it (Chess960-style setups)', () => {
    const fen = '4k3/8/8/8/8/8/8/4K2R w K - 0 1';
    expect(parseMoveInput('O-O', { fen, color: 'white', dests: { e1: ['h1', 'f1'] } })).toEqual({ ok: true, uci: 'e1h1' });
  });
});
