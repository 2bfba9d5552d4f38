// Byes asked in advance (issue 31): the player's page asks one for a later round and
// shows it booked (and cancels it) before the round is paired; the director's console
// books any later round and each kind the evening's format allows (`bye_kinds`, from the
// server: none in a round robin).
import { h, type VNode } from 'snabbdom';
import type { ByeRequest, EveningPlayer, EveningSummary } from '../wire';

/** A bye kind in words; `games`: games a pairing (a double Swiss half point is a draw of both games). */
export function byeKindText(kind: ByeRequest, games = 1): string {
  switch (kind) {
    case 'half':
      return `half-point bye (scored as a draw${games > 1 ? ' of both games' : ''})`;
    case 'zero':
      return 'zero-point bye (no points)';
    case 'full':
      return `full-point bye (scored as a win${games > 1 ? ' of both games' : ''})`;
  }
}

const SHORT: Record<ByeRequest, string> = { half: 'Half-point bye', zero: 'Zero-point bye', full: 'Full-point bye' };

const FORMAT: Record<string, string> = {
  swiss: 'Swiss',
  'double-swiss': 'double Swiss',
  'us-swiss': 'US Chess Swiss',
  'round-robin': 'round robin',
  'double-round-robin': 'double round robin',
  'round-robin-matches': 'round robin of matches',
};

const formatName = (f: string): string => FORMAT[f] ?? f;

/** Games a pairing of the evening plays. */
export const gamesPerPairing = (e: EveningSummary): number => (e.format === 'double-swiss' || e.format === 'round-robin-matches' ? 2 : 1);

/** The rounds a bye may still be asked for: after the latest paired, up to the last. */
export function openRounds(e: EveningSummary): number[] {
  const out: number[] = [];
  for (let r = e.rounds_paired + 1; r <= e.rounds; r++) out.push(r);
  return out;
}

/** What the format allows, in a sentence. */
export function byesAllowedText(e: EveningSummary): string {
  const kinds = e.bye_kinds ?? [];
  if (!kinds.length) return `This evening is a ${formatName(e.format)}: it takes no byes (a game not played is a forfeit).`;
  const list = kinds.map((k) => SHORT[k].toLowerCase().replace(' bye', ''));
  const words = list.length > 1 ? `${list.slice(0, -1).join(', ')} or ${list[list.length - 1]}` : list[0];
  return `This evening (${formatName(e.format)}) allows a ${words} bye, asked before its round is paired.`;
}

const valueOf = (form: HTMLFormElement, name: string): string => {
  const el = form.elements.namedItem(name);
  if (el instanceof RadioNodeList) return el.value;
  return (el as HTMLInputElement | HTMLSelectElement | null)?.value ?? '';
};

export interface ByeActs {
  busy: boolean;
  /** Book a bye (`POST .../bye`). */
  book(round: number, kind: ByeRequest): void;
  /** Cancel one (`POST .../cancel-bye`). */
  cancel(round: number): void;
}

/** The player's own byes: those booked for rounds not yet paired, each with Cancel, and the form to ask one. */
export function playerByesV(e: EveningSummary | null, byes: Partial<Record<number, ByeRequest>> | undefined, acts: ByeActs): VNode | null {
  if (!e) return null;
  const open = openRounds(e);
  const games = gamesPerPairing(e);
  const booked = open.filter((r) => byes?.[r]).map((r) => [r, byes?.[r] as ByeRequest] as const);
  const free = open.filter((r) => !byes?.[r]);
  const kinds = e.bye_kinds ?? [];
  return h('section.byes', { attrs: { 'aria-labelledby': 'byes-title' } }, [
    h('h2#byes-title', 'Byes'),
    ...booked.map(([r, k]) =>
      h('p.booked', { attrs: { 'data-round': String(r) } }, [
        h('span', `Booked: a ${byeKindText(k, games)} in round ${r}. `),
        h('button.cancel-bye', { attrs: { type: 'button', disabled: acts.busy }, on: { click: () => acts.cancel(r) } }, `Cancel the bye in round ${r}`),
      ]),
    ),
    h('p.muted.allowed', byesAllowedText(e)),
    kinds.length && free.length
      ? h(
          'form.ask-bye',
          {
            on: {
              submit: (ev: Event) => {
                ev.preventDefault();
                const form = ev.target as HTMLFormElement;
                acts.book(Number(valueOf(form, 'round')), valueOf(form, 'kind') as ByeRequest);
              },
            },
          },
          [
            h('label', ['Round ', h('select', { attrs: { name: 'round', 'aria-label': 'round of the bye' } }, free.map((r) => h('option', { key: r, attrs: { value: String(r) } }, `round ${r}`)))]),
            h(
              'fieldset.kinds',
              [h('legend', 'Kind'), ...kinds.map((k, i) => h('label.kind', [h('input', { attrs: { type: 'radio', name: 'kind', value: k }, props: { checked: i === 0 } }), ` ${byeKindText(k, games)}`]))],
            ),
            h('button.ask-bye', { attrs: { type: 'submit', disabled: acts.busy } }, 'Ask for the bye'),
          ],
        )
      : kinds.length
        ? h('p.muted', 'No later round is left to ask a bye for.')
        : null,
  ]);
}

/** The console's bye tools for player `p`: a later round and a permitted kind, and Cancel for each booked. */
export function consoleByesV(e: EveningSummary, p: EveningPlayer, acts: ByeActs): VNode | null {
  const kinds = e.bye_kinds ?? [];
  const open = openRounds(e);
  const booked = open.filter((r) => p.byes[r]);
  const free = open.filter((r) => !p.byes[r]);
  if (!kinds.length || !open.length) return null;
  return h('span.byetools', [
    ...booked.map((r) =>
      h('button.cancel-bye', { attrs: { type: 'button', disabled: acts.busy, 'aria-label': `Cancel the bye in round ${r}: ${p.name}` }, on: { click: () => acts.cancel(r) } }, `Cancel the bye in round ${r}`),
    ),
    free.length
      ? h(
          'form.bye-form',
          {
            on: {
              submit: (ev: Event) => {
                ev.preventDefault();
                const form = ev.target as HTMLFormElement;
                acts.book(Number(valueOf(form, 'round')), valueOf(form, 'kind') as ByeRequest);
              },
            },
          },
          [
            h('select', { attrs: { name: 'round', 'aria-label': `Bye round: ${p.name}` } }, free.map((r) => h('option', { key: r, attrs: { value: String(r) } }, `round ${r}`))),
            h('select', { attrs: { name: 'kind', 'aria-label': `Bye kind: ${p.name}` } }, kinds.map((k) => h('option', { attrs: { value: k } }, SHORT[k]))),
            h('button.bye', { attrs: { type: 'submit', disabled: acts.busy, 'aria-label': `Book the bye: ${p.name}` } }, 'Book bye'),
          ],
        )
      : null,
  ]);
}
