// The details the rating reports and the exports need (docs/events.md "Rating reports"):
// the start and end dates, the site and city, the chief arbiter or TD, the host federation
// and the federations' ids. One fieldset, in the new evening's form (`/events/new`, sent
// with `POST /api/events`) and in the director console (`PUT /api/events/{id}/report`,
// editable any time). The server checks every field and names the one it refuses; the page
// only gathers them.
import { h, type VNode } from 'snabbdom';
import type { Details } from './detailsmodel';
import './director.css';

export { createFields, detailsOf, emptyDetails, reportBody, today, type Details } from './detailsmodel';

interface Field {
  key: keyof Details;
  label: string;
  type?: string;
  hint?: string;
}

const GROUPS: { legend: string; fields: Field[] }[] = [
  {
    legend: 'When and where',
    fields: [
      { key: 'date', label: 'Start date', type: 'date' },
      { key: 'end_date', label: 'End date', type: 'date' },
      { key: 'site', label: 'Site', hint: 'the club or hall, for PGN and TRF' },
      { key: 'city', label: 'City' },
      { key: 'state', label: 'State', hint: 'two letters, for US Chess' },
      { key: 'zip', label: 'ZIP code', hint: 'for US Chess' },
      { key: 'country', label: 'Country', hint: 'US Chess writes USA when blank' },
    ],
  },
  {
    legend: 'Arbiters and federations',
    fields: [
      { key: 'chief_arbiter', label: 'Chief arbiter or TD', hint: 'name, for TRF' },
      { key: 'deputy_arbiters', label: 'Deputy arbiters' },
      { key: 'federation', label: 'Host federation', hint: 'three letters (USA, ENG, FRA), for TRF' },
      { key: 'uscf_affiliate', label: 'US Chess affiliate id', hint: 'A and seven digits' },
      { key: 'uscf_chief_td', label: 'US Chess id of the chief TD', hint: 'eight digits' },
      { key: 'uscf_assistant_td', label: 'US Chess id of the assistant TD' },
    ],
  },
];

/**
 * The fieldsets of the details, `prefix` naming their inputs' ids (`ev-date`, `rep-city`,
 * ...); `set` takes each change.
 */
export function detailsFields(prefix: string, d: Details, set: (patch: Partial<Details>) => void): VNode[] {
  return GROUPS.map((g) =>
    h('fieldset.details', [
      h('legend', g.legend),
      ...g.fields.map((f) =>
        h('label.detail', [
          h('span.what', f.label),
          h(`input#${prefix}-${f.key.replace(/_/g, '-')}`, {
            attrs: { name: f.key, type: f.type ?? 'text', maxlength: 120, autocomplete: 'off' },
            props: { value: d[f.key] },
            on: { input: (ev: Event) => set({ [f.key]: (ev.target as HTMLInputElement).value } as Partial<Details>) },
          }),
          f.hint ? h('small', f.hint) : null,
        ]),
      ),
    ]),
  );
}
