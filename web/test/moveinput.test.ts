import { describe, expect, it } from 'vitest';
import { parseMoveInput } from '../src/moveinput';

// Legal moves with their SAN as the server sends them in online mode (`san`).
const START_SAN: Record<string, string> = {
  a2a3: 'a3', a2a4: 'a4', e2e3: 'e3', e2e4: 'e4', b1a3: 'Na3', b1c3: 'Nc3', g1f3: 'Nf3', g1h3: 'Nh3',
};

describe('parseMoveInput, squares', () => {
  it('reads from and to squares in any common spelling, legal or not', () => {
    expect(parseMoveInput('e2e4', null)).toEqual({ ok: true, uci: 'e2e4' });
    expect(parseMoveInput(' E2-E4 ', null)).toEqual({ ok: true, uci: 'e2e4' });
    expect(parseMoveInput('e1e5', START_SAN)).toEqual({ ok: true, uci: 'e1e5' });
    expect(parseMoveInput('e7e8q', null)).toEqual({ ok: true, uci: 'e7e8q' });
    expect(parseMoveInput('e7e8=N', null)).toEqual({ ok: true, uci: 'e7e8n' });
  });
  it('names what is wrong', () => {
    const r = parseMoveInput('e2e2', null);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/same square/);
    expect(parseMoveInput('', null).ok).toBe(false);
  });
  it('asks for squares when the server sent no legal moves (OTB mode)', () => {
    const r = parseMoveInput('Nf3', null);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/e2e4/);
  });
});

describe("parseMoveInput, SAN looked up in the server's list", () => {
  it('finds the move whose SAN was typed, check marks and capture signs aside', () => {
    expect(parseMoveInput('Nf3', START_SAN)).toEqual({ ok: true, uci: 'g1f3' });
    expect(parseMoveInput('e4', START_SAN)).toEqual({ ok: true, uci: 'e2e4' });
    expect(parseMoveInput('Nc3+', START_SAN)).toEqual({ ok: true, uci: 'b1c3' });
  });
  it('refuses a SAN that is not in the list', () => {
    expect(parseMoveInput('Qh5', START_SAN)).toEqual({ ok: false, error: 'Qh5 is not a legal move now' });
  });
  it('reads captures, promotions and castling as the server writes them', () => {
    const san = { e4d5: 'exd5', b7a8q: 'bxa8=Q+', b7a8n: 'bxa8=N', b7b8q: 'b8=Q', b7b8n: 'b8=N', e1g1: 'O-O', e1c1: 'O-O-O', a1d1: 'Rad1', h1d1: 'Rhd1' };
    expect(parseMoveInput('exd5', san)).toEqual({ ok: true, uci: 'e4d5' });
    expect(parseMoveInput('bxa8=Q', san)).toEqual({ ok: true, uci: 'b7a8q' });
    expect(parseMoveInput('b8=N', san)).toEqual({ ok: true, uci: 'b7b8n' });
    expect(parseMoveInput('Rad1', san)).toEqual({ ok: true, uci: 'a1d1' });
    const noPromo = parseMoveInput('b8', san);
    expect(noPromo.ok).toBe(false);
    if (!noPromo.ok) expect(noPromo.error).toMatch(/promotion piece/);
    expect(parseMoveInput('0-0', san)).toEqual({ ok: true, uci: 'e1g1' });
    expect(parseMoveInput('O-O-O', san)).toEqual({ ok: true, uci: 'e1c1' });
    // The server's SAN disambiguates; a bare `Rd1` is no move of the list.
    expect(parseMoveInput('Rd1', san).ok).toBe(false);
  });
});
