// A citation ("uscf-2020 7d") as a button; clicking it shows the rule's summary from the
// server (`flagfall rules explain` over HTTP) in a dialog.
import { explainRule } from './api';
import { h } from './dom';

const cache = new Map<string, Promise<string>>();

function summary(rule: string): Promise<string> {
  let p = cache.get(rule);
  if (!p) {
    p = explainRule(rule).then(
      (e) => e.summary,
      (err: Error) => {
        cache.delete(rule);
        return `No summary available: ${err.message}`;
      },
    );
    cache.set(rule, p);
  }
  return p;
}

let dialog: HTMLDialogElement | null = null;

function showDialog(rule: string, text: string): void {
  if (!dialog) {
    dialog = h('dialog', { class: 'rule-dialog', 'aria-labelledby': 'rule-title' });
    document.body.append(dialog);
  }
  const d = dialog;
  d.replaceChildren(
    h('h2', { id: 'rule-title' }, rule),
    h('p', { class: 'rule-summary' }, text),
    h('form', { method: 'dialog' }, h('button', { type: 'submit', class: 'close' }, 'Close')),
  );
  if (!d.open) d.showModal();
}

/** Opens the rule's summary (what a citation button does). */
export async function openRule(rule: string): Promise<void> {
  showDialog(rule, 'Loading…');
  showDialog(rule, await summary(rule));
}

export function citation(rule: string | null | undefined): HTMLElement | null {
  if (!rule) return null;
  return h(
    'button',
    {
      type: 'button',
      class: 'cite',
      title: 'What this rule says',
      'aria-label': `rule ${rule}: show its summary`,
      onclick: async () => {
        showDialog(rule, 'Loading…');
        showDialog(rule, await summary(rule));
      },
    },
    rule,
  );
}
