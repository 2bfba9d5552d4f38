// A read the server puts off (429 or 503 with a Retry-After) is asked again; an action never
// (src/event/common.ts): a club's twelve phones on one wifi read the new round at once.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { READ_RETRIES, eventApi, retryAfter } from '../src/event/common';

const answer = (status: number, body: unknown, retry?: string): Response =>
  new Response(JSON.stringify(body), { status, headers: retry ? { 'retry-after': retry } : {} });

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('eventApi', () => {
  it('asks a read put off with 429 again after the wait named (and less than a second more), and answers what came', async () => {
    vi.useFakeTimers();
    const calls: string[] = [];
    const replies = [answer(429, { error: 'your address has 4 evening requests in flight' }, '1'), answer(200, { round: 2 })];
    vi.stubGlobal('fetch', async (url: string) => (calls.push(url), replies.shift()));
    const read = eventApi<{ round: number }>('ev1', '/me', 'tok');
    await vi.advanceTimersByTimeAsync(999);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await read).toEqual({ round: 2 });
    expect(calls).toEqual(['/api/events/ev1/me', '/api/events/ev1/me']);
  });

  it("shows the server's refusal once the retries are spent", async () => {
    vi.useFakeTimers();
    let n = 0;
    vi.stubGlobal('fetch', async () => (n++, answer(503, { error: 'the server is busy' }, '1')));
    const read = eventApi('ev1', '/me', 'tok').catch((e: Error) => e.message);
    await vi.advanceTimersByTimeAsync(1000 * (READ_RETRIES + 1) * (READ_RETRIES + 2));
    expect(await read).toBe('the server is busy');
    expect(n).toBe(READ_RETRIES + 1);
  });

  it('never sends an action twice', async () => {
    let n = 0;
    vi.stubGlobal('fetch', async () => (n++, answer(429, { error: 'wait for their answers' }, '1')));
    await expect(eventApi('ev1', '/check-in', 'tok', 'POST', {})).rejects.toThrow('wait for their answers');
    expect(n).toBe(1);
  });

  it('does not ask again after a refusal that is not a wait', async () => {
    let n = 0;
    vi.stubGlobal('fetch', async () => (n++, answer(404, { error: 'no such event' })));
    await expect(eventApi('ev1', '/me', 'tok')).rejects.toThrow('no such event');
    expect(n).toBe(1);
  });
});

describe('retryAfter', () => {
  it('reads the wait of a 429 or 503, 1 s when none is named, at most 10 s', () => {
    expect(retryAfter(answer(429, {}, '2'))).toBe(2000);
    expect(retryAfter(answer(503, {}))).toBe(1000);
    expect(retryAfter(answer(429, {}, '3600'))).toBe(10000);
    expect(retryAfter(answer(400, {}, '2'))).toBeNull();
  });
});
