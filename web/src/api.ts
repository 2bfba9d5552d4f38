// HTTP calls to `flagfall serve` (docs/protocol.md).
import type { ComputerConfig, CreateAnswer, CreateGame, GameState, RematchView, Rulesets } from './protocol';

export interface GameSummary {
  id: string;
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

export async function createGame(body: CreateGame): Promise<CreateAnswer> {
  return json(await fetch('/api/games', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
}

/** A game against the computer (`POST /api/practice`): the computer is a client of the game like any player. */
export async function createPractice(setup: CreateGame, computer: ComputerConfig): Promise<CreateAnswer> {
  return json(await fetch('/api/practice', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ setup, computer }) }));
}

export async function getGame(id: string): Promise<GameState> {
  return json(await fetch(`/api/games/${encodeURIComponent(id)}`));
}

/** The games of one status, newest first (`GET /api/games?status=`). */
export async function listGames(status: 'live' | 'finished'): Promise<GameSummary[]> {
  return json(await fetch(`/api/games?status=${status}`));
}

/** The rulesets the lobby offers, their time-control notation and the quick buttons. */
export async function getRulesets(): Promise<Rulesets> {
  return json(await fetch('/api/rulesets'));
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

export interface ChallengeBody extends CreateGame {
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

// --- rematch (docs/protocol.md, "Rematch") ---

/** Where the rematch of a finished game stands, for the player of `token`. */
export async function getRematch(id: string, token: string): Promise<RematchView> {
  return json(await fetch(`/api/games/${encodeURIComponent(id)}/rematch?token=${encodeURIComponent(token)}`));
}

/** Offer, accept or decline a rematch; answers where it then stands. */
export async function postRematch(id: string, token: string, action: 'offer' | 'accept' | 'decline'): Promise<RematchView> {
  return json(
    await fetch(`/api/games/${encodeURIComponent(id)}/rematch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, action }) }),
  );
}
