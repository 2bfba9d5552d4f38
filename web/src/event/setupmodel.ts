// The new evening's form (`/events/new`): its model, its one reducer and the body of
// `POST /api/events` it sends (pure: the unit tests run it without a page). Which formats
// need a number of rounds, and the upload's Content-Type by the file's name.
import type { Rulesets } from '../protocol';
import { createFields, emptyDetails, type Details } from './detailsmodel';

/** The six formats `POST /api/events` takes, in words. */
export const FORMATS: { id: string; name: string; rounds: boolean }[] = [
  { id: 'swiss', name: 'Swiss (FIDE Dutch)', rounds: true },
  { id: 'double-swiss', name: 'Double Swiss (two games a round)', rounds: true },
  { id: 'us-swiss', name: 'US Chess Swiss', rounds: true },
  { id: 'round-robin', name: 'Round robin', rounds: false },
  { id: 'double-round-robin', name: 'Double round robin', rounds: false },
  { id: 'round-robin-matches', name: 'Round robin of two-game matches', rounds: false },
];

export const needsRounds = (format: string): boolean => FORMATS.find((f) => f.id === format)?.rounds ?? false;

export interface SetupForm {
  name: string;
  format: string;
  rounds: string;
  rules: string;
  time_control: string;
  play: 'server' | 'board';
  mode: 'otb' | 'online';
  confirm: 'one' | 'both';
  /** Pair the next round by itself the moment the last result of a round arrives. */
  auto: boolean;
  /** The dates, site, arbiters and ids the rating reports and exports need. */
  details: Details;
}

export interface SetupModel {
  rulesets: Rulesets | null;
  form: SetupForm;
  error: string | null;
  busy: boolean;
  /** Said when a quick time control changed the ruleset as well: "The ruleset is now ... (3+2 is played under it)". */
  ruleNote: string | null;
}

export type SetupAction =
  | { type: 'rulesets'; rulesets: Rulesets }
  | { type: 'form'; form: Partial<SetupForm> }
  | { type: 'quick'; rules: string; time_control: string }
  | { type: 'busy'; on: boolean }
  | { type: 'error'; error: string | null };

export function initialSetup(): SetupModel {
  return {
    rulesets: null,
    form: { name: '', format: 'swiss', rounds: '5', rules: '', time_control: '', play: 'board', mode: 'otb', confirm: 'one', auto: false, details: emptyDetails() },
    error: null,
    busy: false,
    ruleNote: null,
  };
}

function defaultControl(r: Rulesets | null, id: string): string {
  return r?.rulesets.find((x) => x.id === id)?.controls[0] ?? '';
}

export function reduceSetup(m: SetupModel, a: SetupAction): SetupModel {
  switch (a.type) {
    case 'rulesets': {
      const rules = m.form.rules || (a.rulesets.rulesets[0]?.id ?? '');
      return { ...m, rulesets: a.rulesets, form: { ...m.form, rules, time_control: m.form.time_control || defaultControl(a.rulesets, rules) } };
    }
    case 'form': {
      const form = { ...m.form, ...a.form };
      const ruleNote = a.form.rules !== undefined && a.form.rules !== m.form.rules ? null : m.ruleNote;
      // Another ruleset: its own first usual control (each ruleset writes them its way).
      if (a.form.rules !== undefined && a.form.rules !== m.form.rules) form.time_control = defaultControl(m.rulesets, a.form.rules);
      return { ...m, form, ruleNote };
    }
    case 'quick': {
      // A quick control belongs to a ruleset: choosing one of another ruleset switches it, and says so.
      const found = m.rulesets?.rulesets.find((x) => x.id === a.rules);
      // As the ruleset's list writes it: "Name (id)".
      const name = found ? `${found.name} (${found.id})` : a.rules;
      const ruleNote = a.rules !== m.form.rules ? `The ruleset is now ${name}: ${a.time_control} is one of its time controls.` : m.ruleNote;
      return { ...m, ruleNote, form: { ...m.form, rules: a.rules, time_control: a.time_control } };
    }
    case 'busy':
      return { ...m, busy: a.on, error: a.on ? null : m.error };
    case 'error':
      return { ...m, error: a.error, busy: false };
  }
}

/**
 * The body of `POST /api/events`, or what is wrong with the form in words (only what the
 * browser can see for itself: the rounds' number; the rest is the server's to refuse).
 */
export function setupBody(f: SetupForm): { body: Record<string, unknown> } | { error: string } {
  const body: Record<string, unknown> = { name: f.name.trim(), format: f.format, rules: f.rules, time_control: f.time_control.trim(), play: f.play };
  if (needsRounds(f.format)) {
    const t = f.rounds.trim();
    const n = Number(t);
    if (!/^\d+$/.test(t) || n < 1) return { error: `Rounds: “${f.rounds}” is not a number of rounds (a whole number, 1 or more).` };
    body.rounds = n;
  }
  if (f.play === 'server') body.mode = f.mode;
  else body.confirm = f.confirm;
  if (f.auto) body.auto = true;
  Object.assign(body, createFields(f.details));
  return { body };
}

/**
 * The Content-Type of a players' file by its name: `.csv` CSV, `.trf` TRF, anything else
 * `text/plain`, which the server reads by the text's look (a tag line is TRF, else CSV).
 */
export function uploadType(fileName: string): 'text/csv' | 'application/x-trf' | 'text/plain' {
  if (/\.csv$/i.test(fileName)) return 'text/csv';
  if (/\.trf$/i.test(fileName)) return 'application/x-trf';
  return 'text/plain';
}
