import { describe, expect, it } from 'vitest';
import { allowedClaims, calledText, canCallDirector, checkColor, claimFeedback, fenAfter, initialModel, lastMoveSquares, longNotation, moveRows, reduce, rulingText, shownRulings } from '../src/model';
import type { GameState, ServerMessage, StateUpdate } from '../src/protocol';
import { actions, gameState, player, PROMOTION_RANKS } from './fixtures';

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

const state = gameState;

const stateMsg = (s: GameState): ServerMessage => ({ type: 'state', ...s });

/** An event's update that changes nothing but what `over` names (from the start state). */
function update(over: Partial<StateUpdate>): StateUpdate {
  const s = state();
  return {
    reason: s.reason, rule: s.rule, fen: s.fen, moves_from: 0, moves: [], to_move: s.to_move, running: s.running,
    pending: s.pending, called: null, flags: s.flags, board_move: s.board_move, claims: s.claims, actions: s.actions, draw_offer: s.draw_offer, server_now: 0,
    ...over,
  };
}

describe('reduce', () => {
  it('takes the state on connect', () => {
    const m = reduce(initialModel('white'), stateMsg(state()));
    expect(m.state?.id).toBe('g1');
    expect(m.sounds).toEqual([]);
  });

  it('applies the update an event carries and calls for a move or capture sound', () => {
    let m = reduce(initialModel('black'), stateMsg(state()));
    const e4 = { uci: 'e2e4', san: 'e4', by: 'white' as const, at: 900, fen: 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1' };
    m = reduce(m, {
      type: 'event', n: 1, event: { at: 900, by: 'white', move: 'e2e4', press: true }, rulings: [],
      clock: { white_ms: 180_000, black_ms: 180_000, running: 'black' }, result: '*',
      update: update({ fen: 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1', moves_from: 0, moves: [e4], to_move: 'black', running: 'black' }),
    });
    expect(m.state?.moves).toEqual([e4]);
    expect(m.state?.to_move).toBe('black');
    expect(m.state?.clock.running).toBe('black');
    expect(m.state?.n).toBe(1);
    expect(m.sounds).toEqual(['move']);
    m = reduce(m, {
      type: 'event', n: 2, event: { at: 1000, by: 'black', move: 'd7d5', press: true }, rulings: [],
      clock: { white_ms: 180_000, black_ms: 179_900, running: 'white' }, result: '*',
      update: update({ fen: 'rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2', moves_from: 1, moves: [{ uci: 'd7d5', san: 'd5', by: 'black', at: 1000, fen: 'rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2' }] }),
    });
    m = reduce(m, {
      type: 'event', n: 3, event: { at: 2000, by: 'white', move: 'e4d5', press: true }, rulings: [],
      clock: { white_ms: 179_000, black_ms: 179_900, running: 'black' }, result: '*',
      update: update({ fen: 'rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2', moves_from: 2, moves: [{ uci: 'e4d5', san: 'exd5', by: 'white', at: 2000, fen: 'rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2' }] }),
    });
    expect(m.state?.moves.map((x) => x.san)).toEqual(['e4', 'd5', 'exd5']);
    // Sounds gather until the next frame plays them.
    expect(m.sounds).toEqual(['move', 'move', 'capture']);
    expect(reduce(m, { type: 'local:sounds-played' }).sounds).toEqual([]);
  });

  it("keeps the director's offences when an update leaves them out, takes them when it carries them", () => {
    const penalty = (recorded: number) => ({ recorded, step: 'warning', text: 'a warning', rule: 'blitz-2006 6' });
    const ladder = (recorded: number) => [{ kind: 'two_hands', label: 'Two hands', white: penalty(recorded), black: penalty(0) }];
    const withOffences = (recorded: number) => actions({ director: { ...actions().director, offences: ladder(recorded) } });
    let m = reduce(initialModel('director'), stateMsg(state({ actions: withOffences(0) })));
    const event = (n: number, director: StateUpdate['actions']['director']): ServerMessage => ({
      type: 'event', n, event: { at: n, by: 'white', offer: 'draw' }, rulings: [],
      clock: { white_ms: 1, black_ms: 1, running: 'white' }, result: '*',
      update: update({ actions: { ...actions(), director } }),
    });
    const { offences: _left, ...without } = actions().director;
    m = reduce(m, event(1, { ...without, add_time: false }));
    expect(m.state?.actions.director.offences).toEqual(ladder(0));
    expect(m.state?.actions.director.add_time).toBe(false);
    m = reduce(m, event(2, { ...without, offences: ladder(1) }));
    expect(m.state?.actions.director.offences).toEqual(ladder(1));
    m = reduce(m, event(3, without));
    expect(m.state?.actions.director.offences).toEqual(ladder(1));
  });

  it('splices the moves where a ruling took some back', () => {
    const moves = [
      { uci: 'e2e4', san: 'e4', by: 'white' as const, at: 1, fen: 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1' },
      { uci: 'e7e5', san: 'e5', by: 'black' as const, at: 2, fen: 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2' },
      { uci: 'e1e3', by: 'white' as const, at: 3, fen: 'rnbqkbnr/pppp1ppp/8/4p3/4P3/4K3/PPPP1PPP/RNBQ1BNR b kq - 1 2' },
    ];
    let m = reduce(initialModel('white'), stateMsg(state({ moves, n: 3 })));
    m = reduce(m, {
      type: 'event', n: 4, event: { at: 4, by: 'black', claim: 'illegal' },
      rulings: [{ at: 4, event: 4, kind: 'time_change', ruling: 'The position before the illegal move is restored', rule: 'fide-b3 A.5.2' }],
      clock: { white_ms: 1, black_ms: 2, running: 'white' }, result: '*',
      update: update({ moves_from: 2, moves: [], to_move: 'white' }),
    });
    expect(m.state?.moves).toEqual(moves.slice(0, 2));
    expect(m.state?.rulings).toHaveLength(1);
  });

  it('ignores an event it already has and waits for a fresh state after a gap', () => {
    let m = reduce(initialModel('white'), stateMsg(state({ n: 5 })));
    const ev = (n: number) => ({
      type: 'event' as const, n, event: { at: n, by: 'white' as const, resign: true }, rulings: [],
      clock: { white_ms: 1, black_ms: 1, running: null }, result: '0-1',
      update: update({ reason: 'resignation' }),
    });
    const again = reduce(m, ev(5));
    expect(again.state).toBe(m.state);
    const gap = reduce(m, ev(7));
    expect(gap.state).toBe(m.state);
    m = reduce(m, ev(6));
    expect(m.state?.result).toBe('0-1');
    expect(m.state?.reason).toBe('resignation');
  });

  it('patches clock and rulings for an event that moves nothing', () => {
    let m = reduce(initialModel('spectator'), stateMsg(state()));
    m = reduce(m, {
      type: 'event', n: 1, event: { at: 5, by: 'director', add_time: { color: 'white', ms: 60000 } },
      rulings: [{ at: 5, event: 1, kind: 'time_change', ruling: 'The director adds 60 s to White', rule: 'uscf-2020 3', time: { color: 'white', ms: 60000 } }],
      clock: { white_ms: 240_000, black_ms: 180_000, running: null }, result: '*',
      update: update({}),
    });
    expect(m.state?.clock.white_ms).toBe(240_000);
    expect(m.state?.rulings).toHaveLength(1);
    expect(m.state?.n).toBe(1);
    expect(m.sounds).toEqual(['ruling']);
  });

  it('tells the claimant whether a claim was right, with the rule', () => {
    let m = reduce(initialModel('black'), stateMsg(state({ n: 3 })));
    m = reduce(m, {
      type: 'event', n: 4, event: { at: 50, by: 'black', claim: 'illegal' },
      rulings: [{ at: 50, event: 4, kind: 'result', ruling: 'Black wins: White completed an illegal move', rule: 'uscf-2020 7d', player: 'black' }],
      clock: { white_ms: 1, black_ms: 1, running: null }, result: '0-1', update: update({ reason: 'illegal_move' }),
    });
    expect(m.notice).toEqual({ tone: 'good', text: 'Your claim of an illegal move: Black wins: White completed an illegal move.', rule: 'uscf-2020 7d' });
    expect(m.state?.result).toBe('0-1');
    expect(m.state?.reason).toBe('illegal_move');
    // The opponent's page learns of the claim too.
    let w = reduce(initialModel('white'), stateMsg(state({ n: 3 })));
    w = reduce(w, {
      type: 'event', n: 4, event: { at: 50, by: 'black', claim: 'illegal' },
      rulings: [{ at: 50, event: 4, kind: 'result', ruling: 'Black wins', rule: 'uscf-2020 7d' }],
      clock: { white_ms: 1, black_ms: 1, running: null }, result: '0-1', update: update({ reason: 'illegal_move' }),
    });
    expect(w.notice?.text).toBe('Black claimed an illegal move. Black wins.');
    expect(w.notice?.rule).toBe('uscf-2020 7d');
  });

  it('shows a refusal and an error with what the server said', () => {
    let m = reduce(initialModel('white'), stateMsg(state()));
    m = reduce(m, { type: 'refused', id: 'a1', reason: 'not your turn', rule: 'uscf-2020 14' });
    expect(m.notice).toEqual({ tone: 'bad', text: 'Refused: not your turn', rule: 'uscf-2020 14' });
    // The board that made the refused move is put back as the server has it.
    expect(m.ui.refusals).toBe(1);
    m = reduce(m, { type: 'error', message: 'field "claim": unknown claim "flagg"' });
    expect(m.notice?.text).toMatch(/flagg/);
  });

  it('marks a fallen flag at once, offers the claims it carries and calls for the flag sound', () => {
    let m = reduce(initialModel('white'), stateMsg(state()));
    m = reduce(m, { type: 'flag', color: 'black', claims: { white: ['flag', 'threefold'], black: [] } });
    expect(m.state?.flags).toEqual(['black']);
    expect(allowedClaims(m.state, 'white')).toEqual(['flag', 'threefold']);
    expect(m.sounds).toEqual(['flag']);
  });

  it('tells the player who offered a draw that it was declined', () => {
    let m = reduce(initialModel('white'), stateMsg(state({ draw_offer: 'white', n: 2 })));
    m = reduce(m, {
      type: 'event', n: 3, event: { at: 9, by: 'black', decline: 'draw' }, rulings: [],
      clock: { white_ms: 1, black_ms: 1, running: 'black' }, result: '*', update: update({ draw_offer: null }),
    });
    expect(m.notice).toEqual({ tone: 'info', text: 'Black declined your draw offer.' });
  });

  it('keeps the page\'s own view state: replay position, flip, promotion', () => {
    const moves = [{ uci: 'e2e4', san: 'e4', by: 'white' as const, at: 1, fen: 'x' }, { uci: 'e7e5', san: 'e5', by: 'black' as const, at: 2, fen: 'y' }];
    let m = reduce(initialModel('white'), stateMsg(state({ moves })));
    m = reduce(m, { type: 'local:view', ply: 1 });
    expect(m.ui.viewPly).toBe(1);
    m = reduce(m, { type: 'local:view', ply: -3 });
    expect(m.ui.viewPly).toBe(0);
    // Past the last move is the live board.
    m = reduce(m, { type: 'local:view', ply: 2 });
    expect(m.ui.viewPly).toBeNull();
    m = reduce(m, { type: 'local:flip' });
    expect(m.ui.flipped).toBe(true);
    m = reduce(m, { type: 'local:promotion', ask: { orig: 'e7', dest: 'e8' } });
    expect(m.ui.promotion).toEqual({ orig: 'e7', dest: 'e8' });
    // Cancelled: the pawn goes back (the board is set again from the state).
    const before = m.ui.refusals;
    m = reduce(m, { type: 'local:promotion', ask: null, cancelled: true });
    expect(m.ui.promotion).toBeNull();
    expect(m.ui.refusals).toBe(before + 1);
  });
});

describe('derived display', () => {
  it('offers exactly the claims the server lists for this player, none to others or after the end', () => {
    const s = state({ claims: { white: ['flag', 'illegal'], black: [] } });
    expect(allowedClaims(s, 'white')).toEqual(['flag', 'illegal']);
    expect(allowedClaims(s, 'black')).toEqual([]);
    expect(allowedClaims(s, 'director')).toEqual([]);
  });

  it('writes every move over the board the same way, legal or not, and marks none until the end', () => {
    const s = state({ moves: [
      { uci: 'e2e4', san: 'e4', by: 'white', at: 1, fen: 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1' },
      { uci: 'e7e5', san: 'e5', by: 'black', at: 2, fen: 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2' },
      { uci: 'e1e3', by: 'white', at: 3, fen: 'rnbqkbnr/pppp1ppp/8/4p3/4P3/4K3/PPPP1PPP/RNBQ1BNR b kq - 1 2' },
    ] });
    const cell = (text: string, index: number) => ({ text, index });
    expect(moveRows(s)).toEqual([{ no: 1, white: cell('e2-e4', 0), black: cell('e7-e5', 1) }, { no: 2, white: cell('Ke1-e3', 2) }]);
    // Once the game is over the illegal move's status is known.
    expect(moveRows({ ...s, result: '0-1' })[1].white?.text).toBe('Ke1-e3?');
    // Online every move is legal and shows in SAN.
    expect(moveRows({ ...s, mode: 'online' })[0].white?.text).toBe('e4');
    expect(fenAfter(s, 0)).toBe(START);
    expect(fenAfter(s, 2)).toBe(s.moves[1].fen);
    expect(longNotation('g1f3', START)).toBe('Ng1-f3');
    expect(longNotation('e4d5', 'rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2')).toBe('e4xd5');
    expect(longNotation('e7e8q', '3k4/4P3/8/8/8/8/8/4K3 w - - 0 1')).toBe('e7-e8=Q');
    const fromBlack = state({ setup: { rules: 'fide-b3', time_control: '3+2', fen: '4k3/8/8/8/8/8/8/4K3 b - - 0 40' }, moves: [{ uci: 'e8d8', san: 'Kd8', by: 'black', at: 1, fen: '3k4/8/8/8/8/8/8/4K3 w - - 1 41' }, { uci: 'e1d1', san: 'Kd1', by: 'white', at: 2, fen: '3k4/8/8/8/8/8/8/3K4 b - - 2 41' }] });
    expect(moveRows({ ...fromBlack, mode: 'online' })).toEqual([{ no: 40, black: { text: 'Kd8', index: 0 } }, { no: 41, white: { text: 'Kd1', index: 1 } }]);
    expect(moveRows(fromBlack)[0].black?.text).toBe('Ke8-d8');
  });

  it('highlights the move on the board, else the last completed move, and check from the SAN', () => {
    expect(lastMoveSquares(state({ board_move: { uci: 'g1f3', by: 'white' } }))).toEqual(['g1', 'f3']);
    const s = state({ moves: [{ uci: 'd1h5', san: 'Qh5+', by: 'white', at: 1, fen: 'rnbqkbnr/pppp1ppp/8/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 1 2' }] });
    expect(lastMoveSquares(s)).toEqual(['d1', 'h5']);
    expect(checkColor(s)).toBeNull();
    // Online only: over the board a highlight would tell whether the last move was legal.
    expect(checkColor({ ...s, mode: 'online' })).toBe('black');
    expect(checkColor(state({ moves: [{ uci: 'e1e3', by: 'white', at: 1, fen: 'rnbqkbnr/pppp1ppp/8/4p3/4P3/4K3/PPPP1PPP/RNBQ1BNR b kq - 1 2' }] }))).toBeNull();
  });
});

describe('claimFeedback', () => {
  it('reads a rejected claim as wrong and names the rule', () => {
    expect(claimFeedback('flag', [{ at: 1, event: 2, kind: 'claim_rejected', ruling: 'White\'s flag is not down', rule: 'uscf-2020 7c' }], 'black')).toEqual({
      tone: 'bad', text: 'Your claim of a fallen flag was wrong. White\'s flag is not down.', rule: 'uscf-2020 7c',
    });
  });
});

describe('rulings as a player reads them', () => {
  it('words awkward texts as sentences and lists no refusal of someone else', () => {
    expect(rulingText('claim of an illegal move: White\'s move e1e3 was illegal')).toBe('White\'s move e1e3 was illegal.');
    expect(rulingText('other by white: one minute to Black')).toBe('Offence by White: one minute to Black.');
    expect(rulingText('touch_move by Black: one minute to White')).toBe('Touch move by Black: one minute to White.');
    const s = state({ rulings: [
      { at: 1, event: 1, kind: 'refused', ruling: 'only the director may do that', rule: 'uscf-2020 11' },
      { at: 2, event: 2, kind: 'time_change', ruling: 'The director adds 60 s to White', rule: 'uscf-2020 3' },
    ] });
    expect(shownRulings(s).map((r) => r.kind)).toEqual(['time_change']);
  });

});

describe('calling the director', () => {
  it('shows a pending call with who called and why, on every page', () => {
    const called = state({ called: { by: 'black', at: 5000, reason: 'he keeps talking' } });
    expect(calledText(called)).toBe('Black called the director: “he keeps talking”. The clock is stopped until the director comes.');
    expect(calledText(state({ called: { by: 'white', at: 1 } }))).toMatch(/^White called the director\. /);
    expect(calledText(state())).toBeNull();
    expect(calledText(state({ called: null }))).toBeNull();
    expect(calledText(state({ result: '1-0', called: { by: 'white', at: 1 } }))).toBeNull();
  });

  it('lets a player call while the game goes on, a director is present and nothing waits', () => {
    expect(canCallDirector(state(), 'white')).toBe(true);
    expect(canCallDirector(state(), 'spectator')).toBe(false);
    expect(canCallDirector(state(), 'director')).toBe(false);
    // Whether a call is allowed now (a director present, nothing waiting) is the server's to say.
    expect(canCallDirector(state({ actions: actions({ black: player({ call_director: false }) }) }), 'black')).toBe(false);
    expect(canCallDirector(state({ actions: actions({ black: player({ call_director: false }) }) }), 'white')).toBe(true);
    expect(canCallDirector(null, 'white')).toBe(false);
  });

  it('takes the call from an event and clears it when the director resumes', () => {
    let m = reduce(initialModel('white'), stateMsg(state()));
    m = reduce(m, {
      type: 'event', n: 1, event: { at: 900, by: 'black', call_director: true }, rulings: [],
      clock: { white_ms: 180_000, black_ms: 180_000, running: null }, result: '*',
      update: update({ called: { by: 'black', at: 900, reason: null } }),
    });
    expect(m.state?.called?.by).toBe('black');
    m = reduce(m, {
      type: 'event', n: 2, event: { at: 9000, by: 'director', start_clock: true }, rulings: [],
      clock: { white_ms: 180_000, black_ms: 180_000, running: 'black' }, result: '*',
      update: update({ called: null, running: 'black' }),
    });
    expect(m.state?.running).toBe('black');
    expect(calledText(m.state)).toBeNull();
  });
});
