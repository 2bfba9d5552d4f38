import { describe, expect, it } from 'vitest';
import { nextPenalty, offenceCount } from '../src/ladder';
import { route } from '../src/router';

describe('route', () => {
  it('maps the page paths the server sends to the pages', () => {
    expect(route('/', '')).toEqual({ page: 'lobby' });
    expect(route('/play/g7', '?token=abc')).toEqual({ page: 'play', id: 'g7', token: 'abc' });
    expect(route('/watch/g7', '')).toEqual({ page: 'watch', id: 'g7' });
    expect(route('/direct/g7', '?token=d')).toEqual({ page: 'direct', id: 'g7', token: 'd' });
    expect(route('/direct', '')).toEqual({ page: 'direct', id: null, token: null });
    expect(route('/play/g7/x', '')).toEqual({ page: 'notfound', path: '/play/g7/x' });
    expect(route('/challenge/c1', '?secret=s3')).toEqual({ page: 'challenge', id: 'c1', secret: 's3' });
    expect(route('/challenge/c1', '')).toEqual({ page: 'challenge', id: 'c1', secret: null });
  });
});

describe('director penalty preview', () => {
  const ladder = { ladder: ['warning', 'opponent_plus_minute', 'forfeit'], rule: 'blitz-2006 9' };
  it('gives the ladder step for the next offence, the last one repeating', () => {
    expect(nextPenalty(ladder, 0)).toEqual({ step: 'warning', text: 'a warning', rule: 'blitz-2006 9' });
    expect(nextPenalty(ladder, 1)?.step).toBe('opponent_plus_minute');
    expect(nextPenalty(ladder, 5)?.text).toBe('loss of the game');
    expect(nextPenalty(undefined, 0)).toBeNull();
  });
  it('counts earlier offences of one kind by one player from the stored script', () => {
    const script = [
      '{"rules":"blitz-2006","time_control":"5|0"}',
      '{"at":10,"by":"director","offence":{"player":"white","kind":"knocked_clock"}}',
      '{"at":20,"by":"director","offence":{"player":"black","kind":"knocked_clock"}}',
      '{"at":30,"by":"director","offence":{"player":"white","kind":"knocked_clock"}}',
      '{"at":40,"by":"director","offence":{"player":"white","kind":"two_hands"}}',
      '',
    ].join('\n');
    expect(offenceCount(script, 'white', 'knocked_clock')).toBe(2);
    expect(offenceCount(script, 'black', 'knocked_clock')).toBe(1);
    expect(offenceCount(script, 'black', 'touch_move')).toBe(0);
  });
});

describe('pendingText', () => {
  it('names the claimant, the claim and the assistant\'s advice with its reasons', async () => {
    const { pendingText } = await import('../src/ladder');
    expect(pendingText({ claimant: 'black', claim: 'draw_position', recommendation: { grant: true, rule: 'blitz-2006 8h', reasons: ['rook against rook, no pawns'] } })).toBe(
      'Black claims draw position; the clock is stopped. The assistant recommends: grant (rook against rook, no pawns).',
    );
    expect(pendingText({ claimant: 'white', claim: 'ilc', recommendation: null })).toBe('White claims ilc; the clock is stopped.');
  });
});
