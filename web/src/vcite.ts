// A citation as a snabbdom vnode: the same button as citation.ts, for the views.
import { h, type VNode } from 'snabbdom';
import { openRule } from './citation';

export function citeV(rule: string | null | undefined): VNode | null {
  if (!rule) return null;
  return h(
    'button.cite',
    { attrs: { type: 'button', title: 'What this rule says', 'aria-label': `rule ${rule}: show its summary` }, on: { click: () => void openRule(rule) } },
    rule,
  );
}
