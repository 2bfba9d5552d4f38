// HTTP calls to `flagfall serve` (docs/protocol.md).
import type { GameState } from './protocol';

export interface CreateBody {
  rules: string;
  time_control: string;
  mode?: 'otb' | 'online';
  white?: string;
  black?: string;
  director?: boolean;
  auto_flag?: boolean;
  [k: string]: unknown;
}

export interface CreateAnswer {
  id: string;
  tokens: { white: string; black: string; director: string };
  urls: { white: string; black: string; director: string; spectator: string };
}

export interface GameSummary {
  id: string;
  /** Older servers nested the setup; newer ones list its names, ruleset and time control at the top. */
  white?: string | null;
  black?: string | null;
  rules?: string;
  time_control?: string;
  mode?: string;
  result?: string;
  reason?: string | null;
  [k: string]: unknown;
}

const FIELD_NAMES: Record<string, string> = {
  rules: 'Ruleset',
  time_control: 'Time control',
  mode: 'Mode',
  white: "White's name",
  black: "Black's name",
  name: 'Your name',
  color: 'Colour',
  fen: 'Start position',
  director: 'Director',
};

/** A server error as a person reads it: "field `time_control`: ..." becomes "Time control: ...". */
export function fieldError(text: string): string {
  return text.replace(/^field `([a-z_]+)`: /, (_m, f: string) => `${FIELD_NAMES[f] ?? f.replace(/_/g, ' ')}: `);
}

async function errorText(r: Response): Promise<string> {
  const t = await r.text();
  try {
    const j = JSON.parse(t);
    if (j && typeof j.error === 'string') return fieldError(j.error);
    if (j && typeof j.message === 'string') return j.message;
  } catch {
    /* plain text */
  }
  return t || `${r.status} ${r.statusText}`;
}

async function json<T>(r: Response): Promise<T> {
  if (!r.ok) throw new Error(await errorText(r));
  return (await r.json()) as T;
}

export async function createGame(body: CreateBody): Promise<CreateAnswer> {
  return json(await fetch('/api/games', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
}

export interface ComputerConfig {
  /** The colour the computer plays. */
  color: 'white' | 'black';
  level: number;
  training: boolean;
  illegal_rate?: number;
  seed?: number;
  /** Training: the computer's move from which it shuffles for a repetition to claim. */
  repeat_at?: number;
}

/** A game against the computer (`POST /api/practice`): the computer is a client of the game like any player. */
export async function createPractice(setup: CreateBody, computer: ComputerConfig): Promise<CreateAnswer> {
  return json(await fetch('/api/practice', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ setup, computer }) }));
}

export async function getGame(id: string): Promise<GameState> {
  return json(await fetch(`/api/games/${encodeURIComponent(id)}`));
}

/** The list answers either an array or {"games": [...]}. */
export async function listGames(status: 'live' | 'finished'): Promise<GameSummary[]> {
  const v = await json<unknown>(await fetch(`/api/games?status=${status}`));
  if (Array.isArray(v)) return v as GameSummary[];
  if (v && typeof v === 'object' && Array.isArray((v as { games?: unknown }).games)) return (v as { games: GameSummary[] }).games;
  return [];
}

export interface Explanation {
  rule: string;
  summary: string;
  [k: string]: unknown;
}

/** `flagfall rules explain` over HTTP: the summary of one citation such as "uscf-2020 7d". */
export async function explainRule(citation: string): Promise<Explanation> {
  return json(await fetch(`/api/explain?rule=${encodeURIComponent(citation)}`));
}

// --- open challenges (docs/protocol.md, "Challenges") ---

export interface ChallengeBody extends CreateBody {
  /** The creator's colour. */
  color: 'white' | 'black' | 'random';
  /** The creator's name. */
  name?: string;
}

export interface ChallengeCreated {
  id: string;
  secret: string;
  url: string;
}

export interface Challenge {
  id: string;
  status: 'open' | 'accepted' | 'cancelled' | 'expired';
  color: 'white' | 'black' | 'random';
  name?: string | null;
  rules: string;
  time_control: string;
  mode: string;
  created_ms: number;
  /** With the creator's secret, once accepted: the creator's side of the game. */
  game?: { id: string; color: 'white' | 'black'; token: string; url: string };
}

export interface ChallengeAccepted {
  game_id: string;
  color: 'white' | 'black';
  token: string;
  url: string;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

export async function createChallenge(body: ChallengeBody): Promise<ChallengeCreated> {
  return json(await fetch('/api/challenges', { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) }));
}

export async function listChallenges(): Promise<Challenge[]> {
  const v = await json<unknown>(await fetch('/api/challenges'));
  return Array.isArray(v) ? (v as Challenge[]) : [];
}

export async function getChallenge(id: string, secret: string | null): Promise<Challenge> {
  const q = secret ? `?secret=${encodeURIComponent(secret)}` : '';
  return json(await fetch(`/api/challenges/${encodeURIComponent(id)}${q}`));
}

export async function acceptChallenge(id: string, name: string): Promise<ChallengeAccepted> {
  const body = name ? JSON.stringify({ name }) : '';
  return json(await fetch(`/api/challenges/${encodeURIComponent(id)}/accept`, { method: 'POST', headers: JSON_HEADERS, body }));
}

export async function cancelChallenge(id: string, secret: string): Promise<void> {
  const r = await fetch(`/api/challenges/${encodeURIComponent(id)}?secret=${encodeURIComponent(secret)}`, { method: 'DELETE' });
  if (!r.ok) throw new Error(await errorText(r));
}

export function wsUrl(id: string, token: string | null): string {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const q = token ? `?token=${encodeURIComponent(token)}` : '';
  return `${proto}//${location.host}/ws/games/${encodeURIComponent(id)}${q}`;
}
