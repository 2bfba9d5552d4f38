import { describe, expect, it } from 'vitest';
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
    expect(route('/events/e1/projector', '')).toEqual({ page: 'projector', id: 'e1' });
    expect(route('/events/e1/print/slips', '?round=2')).toEqual({ page: 'print', id: 'e1', kind: 'slips' });
    expect(route('/events/e1/print', '')).toEqual({ page: 'notfound', path: '/events/e1/print' });
  });
});

describe('pendingText', () => {
  it('names the claimant, the claim and the assistant\'s advice with its reasons', async () => {
    const { pendingText } = await import('../src/ladder');
    expect(pendingText({ claimant: 'black', claim: 'draw_position', recommendation: { grant: true, rule: 'blitz-2006 8h', reasons: ['rook against rook, no pawns'] } })).toBe(
      'Black claims draw position; the clock is stopped. The assistant recommends: grant (rook against rook, no pawns).',
    );
  });
});
