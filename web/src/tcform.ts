// The ruleset and time-control pieces of a form, as the server lists them
// (`GET /api/rulesets`): the lobby's game and practice forms and the new evening's form
// use the same select, quick buttons, suggestions and notation hint.
import { h, type VNode } from 'snabbdom';
import type { Rulesets } from './protocol';

const value = (ev: Event): string => (ev.target as HTMLInputElement).value;

/** The rulesets as a select. */
export function rulesSelect(rulesets: Rulesets | null, id: string, current: string, change: (v: string) => void): VNode {
  const list = rulesets?.rulesets ?? [];
  return h(
    `select#${id}`,
    { props: { value: current }, on: { change: (ev: Event) => change(value(ev)) } },
    list.map((r) => h('option', { attrs: { value: r.id }, props: { selected: r.id === current } }, `${r.name} (${r.id})`)),
  );
}

/** The usual time controls of ruleset `rules`, as suggestions of the free field. */
export function controlsList(rulesets: Rulesets | null, id: string, rules: string): VNode {
  const r = rulesets?.rulesets.find((x) => x.id === rules);
  return h(`datalist#${id}`, (r?.controls ?? []).map((c) => h('option', { attrs: { value: c } })));
}

/** How ruleset `rules` writes a time control. */
export function notation(rulesets: Rulesets | null, rules: string): string {
  const r = rulesets?.rulesets.find((x) => x.id === rules);
  return r ? `Written as ${r.notation}.` : '';
}

/** The server's quick buttons (a ruleset and a control each); `focus` is the field to focus after a pick. */
export function quickButtons(rulesets: Rulesets | null, rules: string, tc: string, pick: (rules: string, tc: string) => void, focus: string): VNode {
  return h(
    'div.quick',
    { attrs: { role: 'group', 'aria-label': 'quick time controls' } },
    (rulesets?.quick ?? []).map((q) =>
      h(
        'button.quick-tc',
        {
          class: { on: rules === q.rules && tc === q.time_control },
          attrs: { type: 'button', 'data-tc': q.time_control, title: `${q.time_control} under ${q.rules}` },
          on: {
            click: () => {
              pick(q.rules, q.time_control);
              document.getElementById(focus)?.focus();
            },
          },
        },
        q.time_control,
      ),
    ),
  );
}
