// The lobby's model and its one reducer (pure: the unit tests run it without a page).
import type { Challenge, GameSummary } from './api';
import type { Color, CreateAnswer, CreateGame, Mode, Rulesets } from './protocol';

export interface GameForm {
  rules: string;
  time_control: string;
  mode: Mode;
  color: Color | 'random';
  name: string;
  opponent: string;
  director: boolean;
}

export interface PracticeForm {
  rules: string;
  time_control: string;
  color: Color;
  level: number;
  training: boolean;
}

export interface LobbyModel {
  rulesets: Rulesets | null;
  rulesetsError: string | null;
  form: GameForm;
  practice: PracticeForm;
  /** The game just created, with the colour of whoever created it. */
  created: { answer: CreateAnswer; mine: Color } | null;
  error: string | null;
  practiceError: string | null;
  challenges: Challenge[] | null;
  challengeError: string | null;
  live: GameSummary[] | null;
  finished: GameSummary[] | null;
  listError: { live: string | null; finished: string | null };
  busy: boolean;
}

export type LobbyAction =
  | { type: 'rulesets'; rulesets: Rulesets }
  | { type: 'rulesets-error'; error: string }
  | { type: 'form'; form: Partial<GameForm> }
  | { type: 'practice'; practice: Partial<PracticeForm> }
  | { type: 'quick'; rules: string; time_control: string }
  | { type: 'busy'; on: boolean }
  | { type: 'created'; answer: CreateAnswer; mine: Color }
  | { type: 'error'; error: string | null }
  | { type: 'practice-error'; error: string | null }
  | { type: 'challenges'; challenges: Challenge[] }
  | { type: 'challenge-error'; error: string | null }
  | { type: 'games'; status: 'live' | 'finished'; games: GameSummary[] }
  | { type: 'games-error'; status: 'live' | 'finished'; error: string };

export function initialLobby(): LobbyModel {
  return {
    rulesets: null,
    rulesetsError: null,
    form: { rules: '', time_control: '', mode: 'otb', color: 'white', name: '', opponent: '', director: true },
    practice: { rules: '', time_control: '', color: 'white', level: 5, training: true },
    created: null,
    error: null,
    practiceError: null,
    challenges: null,
    challengeError: null,
    live: null,
    finished: null,
    listError: { live: null, finished: null },
    busy: false,
  };
}

/** The first usual time control of ruleset `id`, as the server lists it. */
function defaultControl(r: Rulesets | null, id: string): string {
  return r?.rulesets.find((x) => x.id === id)?.controls[0] ?? '';
}

/** The lobby's one reducer. */
export function reduceLobby(m: LobbyModel, a: LobbyAction): LobbyModel {
  switch (a.type) {
    case 'rulesets': {
      const first = a.rulesets.rulesets[0]?.id ?? '';
      const rules = m.form.rules || first;
      const pRules = m.practice.rules || first;
      return {
        ...m,
        rulesets: a.rulesets,
        rulesetsError: null,
        form: { ...m.form, rules, time_control: m.form.time_control || defaultControl(a.rulesets, rules) },
        practice: { ...m.practice, rules: pRules, time_control: m.practice.time_control || defaultControl(a.rulesets, pRules) },
      };
    }
    case 'rulesets-error':
      return { ...m, rulesetsError: a.error };
    case 'form': {
      const form = { ...m.form, ...a.form };
      // Another ruleset: its own first usual control (each ruleset writes them its way).
      if (a.form.rules !== undefined && a.form.rules !== m.form.rules) form.time_control = defaultControl(m.rulesets, a.form.rules);
      return { ...m, form };
    }
    case 'practice': {
      const practice = { ...m.practice, ...a.practice };
      if (a.practice.rules !== undefined && a.practice.rules !== m.practice.rules) practice.time_control = defaultControl(m.rulesets, a.practice.rules);
      return { ...m, practice };
    }
    case 'quick':
      return { ...m, form: { ...m.form, rules: a.rules, time_control: a.time_control } };
    case 'busy':
      return { ...m, busy: a.on };
    case 'created':
      return { ...m, created: { answer: a.answer, mine: a.mine }, error: null, busy: false };
    case 'error':
      // An older game's links beside a new error would read as this attempt's result.
      return { ...m, error: a.error, created: a.error ? null : m.created, busy: false };
    case 'practice-error':
      return { ...m, practiceError: a.error, busy: false };
    case 'challenges':
      return { ...m, challenges: a.challenges, challengeError: null };
    case 'challenge-error':
      return { ...m, challengeError: a.error };
    case 'games':
      return { ...m, [a.status]: a.games, listError: { ...m.listError, [a.status]: null } };
    case 'games-error':
      return { ...m, listError: { ...m.listError, [a.status]: a.error } };
  }
}

/** The body of `POST /api/games` for the form: the names go to the creator's colour and the other. */
export function createBody(f: GameForm, mine: Color): CreateGame {
  const body: CreateGame = { rules: f.rules, time_control: f.time_control.trim(), mode: f.mode, director: f.director };
  const other: Color = mine === 'white' ? 'black' : 'white';
  if (f.name.trim()) body[mine] = f.name.trim();
  if (f.opponent.trim()) body[other] = f.opponent.trim();
  return body;
}
