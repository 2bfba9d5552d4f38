// What the evening's pages share (docs/protocol.md, "Evenings"): the shapes the server
// answers, its routes with a Bearer token, and the live socket of the evening
// (`/ws/events/{id}`), which reconnects by itself and starts again from a full `state`.
import { Backoff } from '../connection';

export interface PlayerRef {
  name: string;
  number: number;
}

export interface EventPlayer extends PlayerRef {
  rating: number | null;
  federation: string | null;
  checked_in: boolean;
  paused: boolean;
  joined_round: number | null;
  withdrawn_from: number | null;
  /** Byes asked in advance: round to kind (`half`, `zero`, `full`). */
  byes: Record<string, string>;
}

/** A game of the evening waiting for the director: a claim to rule on, or a player's call. */
export interface Dispute {
  game: string;
  round: number;
  board: number;
  game_number: number;
  white: string;
  black: string;
  since: number;
  what:
    | { kind: 'claim'; claimant: 'white' | 'black'; claim: string; advice: { grant: boolean; reasons: string[] } }
    | { kind: 'call'; by: 'white' | 'black'; reason: string | null };
}

export interface Disagreement {
  round: number;
  board: number;
  white: string[] | null;
  black: string[] | null;
}

export interface EventSummary {
  id: string;
  name: string;
  format: string;
  rounds: number | null;
  rounds_paired: number;
  rounds_complete: number;
  time_control: string | null;
  rules: string | null;
  play: 'server' | 'board';
  mode: string;
  confirm: 'one' | 'both';
  auto: boolean;
  check_in: boolean;
  players: EventPlayer[];
  disagreements: Disagreement[];
  disputes: Dispute[];
  seq: number;
}

export interface Board {
  board: number;
  white: PlayerRef;
  black: PlayerRef;
  results: (string | null)[];
  game?: string;
  games?: (string | null)[];
  reported?: { white: string[] | null; black: string[] | null };
}

export interface RoundView {
  round: number;
  boards: Board[];
  bye?: (PlayerRef & { kind: string })[];
  complete: boolean;
  manual_by?: string | null;
}

export interface StandingsRow {
  rank: number;
  name: string;
  number: number;
  points: number;
  tiebreaks: Record<string, number | null>;
}

export interface Standings {
  after_round: number;
  tiebreaks: string[];
  rows: StandingsRow[];
}

export interface Me {
  name: string;
  number: number;
  in_event: boolean;
  checked_in: boolean;
  paused: boolean;
  withdrawn_from: number | null;
  round: number;
  points: string;
  rank?: number;
  board?: number;
  colour?: 'white' | 'black';
  opponent?: PlayerRef;
  results?: (string | null)[];
  games?: { id: string; url: string }[];
  bye?: string;
}

export interface LogEntry {
  seq: number;
  at: number;
  by: string;
  change: Record<string, unknown> & { type?: string };
  before?: unknown;
  effects?: unknown;
}

/** A message of the evening's live socket. */
export type LiveMessage =
  | { type: 'state'; event: EventSummary; round: RoundView | null; standings: Standings | null }
  | { type: 'change'; seq: number; rows: unknown[]; effects: unknown[]; round?: RoundView | null; players?: EventPlayer[]; standings?: Standings | null; disputes?: Dispute[] }
  | { type: 'dispute'; game: string; dispute: Dispute | null; disputes: Dispute[] };

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

/** A call of the evening's API (`/api/events/{id}{tail}`) with the page's token; the server's error as the Error's message. */
export async function eventApi<T>(id: string, tail: string, token: string | null, method = 'GET', body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(`/api/events/${encodeURIComponent(id)}${tail}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!r.ok) throw new Error(await errorText(r));
  return (await r.json()) as T;
}

/** A file's text sent as it is (`POST /api/events/{id}{tail}` with its Content-Type): the players' CSV or TRF; the server's error as the Error's message. */
export async function eventUpload<T>(id: string, tail: string, token: string, text: string, contentType: string): Promise<T> {
  const r = await fetch(`/api/events/${encodeURIComponent(id)}${tail}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': contentType }, body: text });
  if (!r.ok) throw new Error(await errorText(r));
  return (await r.json()) as T;
}

export type LiveStatus = 'connecting' | 'online' | 'offline';

/** The evening's live socket: every message to `onMessage`; reconnects with backoff (the server then sends a fresh `state`). With the director's `token`, the director's socket (disputes, the players' reports). */
export function liveEvening(id: string, onMessage: (m: LiveMessage) => void, onStatus: (s: LiveStatus) => void, token: string | null = null): () => void {
  const backoff = new Backoff();
  let ws: WebSocket | null = null;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const open = (): void => {
    onStatus('connecting');
    const query = token ? `?token=${encodeURIComponent(token)}` : '';
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws/events/${encodeURIComponent(id)}${query}`;
    ws = new WebSocket(url);
    ws.onopen = () => {
      backoff.reset();
      onStatus('online');
    };
    ws.onmessage = (ev) => {
      try {
        onMessage(JSON.parse(String(ev.data)) as LiveMessage);
      } catch {
        /* not ours */
      }
    };
    ws.onclose = () => {
      if (stopped) return;
      onStatus('offline');
      timer = setTimeout(open, backoff.next());
    };
  };
  open();
  return () => {
    stopped = true;
    clearTimeout(timer);
    ws?.close();
  };
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

export const absolute = (path: string): string => new URL(path, location.origin).toString();
