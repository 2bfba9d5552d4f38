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
  setup?: { rules?: string; time_control?: string; white?: string; black?: string };
  mode?: string;
  result?: string;
  reason?: string | null;
  [k: string]: unknown;
}

async function errorText(r: Response): Promise<string> {
  const t = await r.text();
  try {
    const j = JSON.parse(t);
    if (j && typeof j.error === 'string') return j.error;
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

export function wsUrl(id: string, token: string | null): string {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const q = token ? `?token=${encodeURIComponent(token)}` : '';
  return `${proto}//${location.host}/ws/games/${encodeURIComponent(id)}${q}`;
}
