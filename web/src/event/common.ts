// What the evening's pages share (docs/protocol.md, "Evenings"): its routes with a Bearer
// token and the words for results and disputes. The shapes the server answers are the
// generated wire types (../wire.ts, from crates/flagfall-protocol/src/evening.rs); the
// live socket is ./live.ts.
import type { Dispute, PlayerAction } from '../wire';

async function errorText(r: Response): Promise<string> {
  const t = await r.text();
  try {
    const j = JSON.parse(t);
    if (j && typeof j.error === 'string') return j.error;
  } catch {
    /* plain text */
  }
  return t || `${r.status} ${r.statusText}`;
}

/** How many times a read the server put off (429, 503) is asked again before its refusal is shown. */
export const READ_RETRIES = 8;

/**
 * A call of the evening's API (`/api/events/{id}{tail}`) with the page's token; the server's
 * error as the Error's message. A read (GET) the server puts off with a Retry-After (429:
 * the address or the evening has its share in flight, as when a club's phones on one wifi
 * all read the new round at once; 503: the server is busy) is asked again after the wait
 * it names and a random part of a second more, a little more each time (so that the
 * phones that were put off together do not all ask again at once), up to READ_RETRIES times; an action is never
 * sent twice.
 */
export async function eventApi<T>(id: string, tail: string, token: string | null, method = 'GET', body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  for (let tries = 0; ; tries++) {
    const r = await fetch(`/api/events/${encodeURIComponent(id)}${tail}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (r.ok) return (await r.json()) as T;
    const wait = retryAfter(r);
    if (method !== 'GET' || wait === null || tries >= READ_RETRIES) throw new Error(await errorText(r));
    await new Promise((done) => setTimeout(done, wait + Math.floor(Math.random() * 1000 * (tries + 1))));
  }
}

/** The wait a 429 or 503 asks for, in milliseconds (its Retry-After in seconds, 1 if it names none); null for any other answer. */
export function retryAfter(r: Pick<Response, 'status' | 'headers'>): number | null {
  if (r.status !== 429 && r.status !== 503) return null;
  const s = Number(r.headers.get('retry-after'));
  return (Number.isFinite(s) && s > 0 ? Math.min(s, 10) : 1) * 1000;
}

/** A file's text sent as it is (`POST /api/events/{id}{tail}` with its Content-Type): the players' CSV or TRF; the server's error as the Error's message. */
export async function eventUpload<T>(id: string, tail: string, token: string, text: string, contentType: string): Promise<T> {
  const r = await fetch(`/api/events/${encodeURIComponent(id)}${tail}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': contentType }, body: text });
  if (!r.ok) throw new Error(await errorText(r));
  return (await r.json()) as T;
}

/**
 * A result as a person reads it ("1–0", "½–½", "1–0 forfeit", ...), from the short form
 * the rounds carry or the long one of the log and the reports; null is "not in yet".
 */
export function resultText(r: string | null | undefined): string {
  switch (r) {
    case null:
    case undefined:
    case 'pending':
      return '…';
    case '1-0':
    case 'white-wins':
      return '1–0';
    case '0-1':
    case 'black-wins':
      return '0–1';
    case '1/2':
    case 'draw':
      return '½–½';
    case '+-':
    case 'white-wins-by-forfeit':
      return '1–0 forfeit';
    case '-+':
    case 'black-wins-by-forfeit':
      return '0–1 forfeit';
    case '--':
    case 'double-forfeit':
      return 'double forfeit';
    default:
      return r;
  }
}

/** What a waiting game waits for, in words. */
export function disputeText(d: Dispute): string {
  const w = d.what;
  if (w.kind === 'call') {
    const who = w.by === 'white' ? d.white || 'White' : d.black || 'Black';
    return `${who} (${w.by}) calls the director${w.reason ? `: “${w.reason}”` : ''}`;
  }
  const who = w.claimant === 'white' ? d.white || 'White' : d.black || 'Black';
  const advice = `the assistant advises ${w.advice.grant ? 'granting' : 'denying'} it${w.advice.reasons.length ? ` (${w.advice.reasons.join('; ')})` : ''}`;
  return `${who} (${w.claimant}) claims ${w.claim.replace(/_/g, ' ')}; ${advice}`;
}

/** The route of an action on player `n` (`POST`; the director, or the player for their own check-in, check-out and byes). */
export const playerAction = (n: number, action: PlayerAction): string => `/players/${n}/${action}`;

export const absolute = (path: string): string => new URL(path, location.origin).toString();
