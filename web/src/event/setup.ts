// The new evening's page (`/events/new`, linked from the lobby): name, format, rounds
// where the format needs them, ruleset and time control (the server's rulesets, quick
// buttons and suggestions, as the lobby's game form), the server's boards (with the mode)
// or physical boards (with who confirms a result). `POST /api/events`; a refusal shows in
// the server's words, a success goes to the director console the answer names. One
// reducer (setupmodel.ts), small snabbdom views.
import { attributesModule, classModule, eventListenersModule, h, init, propsModule, type VNode } from 'snabbdom';
import { getRulesets } from '../api';
import type { EveningCreated } from '../wire';
import { controlsList, notation, quickButtons, rulesSelect } from '../tcform';
import { detailsFields } from './details';
import { rememberEvening } from './remember';
import { FORMATS, initialSetup, needsRounds, reduceSetup, setupBody, type SetupAction, type SetupForm, type SetupModel } from './setupmodel';

async function errorText(r: Response): Promise<string> {
  const t = await r.text();
  try {
    const j = JSON.parse(t);
    if (j && typeof j.error === 'string') return j.error;
  } catch {
    /* plain text */
  }
  return t || `${r.status} ${r.statusText}`;
}

class SetupCtrl {
  model: SetupModel = initialSetup();
  private frame = 0;

  constructor(private readonly onRedraw: () => void) {}

  dispatch(a: SetupAction): void {
    this.model = reduceSetup(this.model, a);
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.onRedraw();
    });
  }

  start(): void {
    void getRulesets().then(
      (rulesets) => this.dispatch({ type: 'rulesets', rulesets }),
      (e: Error) => this.dispatch({ type: 'error', error: `Could not read the rulesets: ${e.message}` }),
    );
  }

  async create(): Promise<void> {
    const b = setupBody(this.model.form);
    if ('error' in b) {
      this.dispatch({ type: 'error', error: b.error });
      return;
    }
    this.dispatch({ type: 'busy', on: true });
    try {
      const r = await fetch('/api/events', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b.body) });
      if (!r.ok) throw new Error(await errorText(r));
      const c = (await r.json()) as EveningCreated;
      // This browser remembers the evening: /direct/ lists it again (a lost link is not a lost evening).
      rememberEvening(c.id, c.director_token, (b.body.name as string) || c.id);
      // The console says the link holds the director's token while the evening has no players.
      location.assign(c.urls.director);
    } catch (e) {
      this.dispatch({ type: 'error', error: `Could not create the evening: ${(e as Error).message}` });
    }
  }
}

const value = (ev: Event): string => (ev.target as HTMLInputElement).value;

function radio(name: string, current: string, v: string, label: string, set: (v: string) => void): VNode {
  return h('label.check', [h(`input#${name}-${v}`, { attrs: { type: 'radio', name, value: v }, props: { checked: current === v }, on: { change: () => set(v) } }), ` ${label}`]);
}

function setupForm(ctrl: SetupCtrl): VNode {
  const m = ctrl.model;
  const f = m.form;
  const set = (form: Partial<SetupForm>) => ctrl.dispatch({ type: 'form', form });
  return h(
    'form.create.new-evening',
    {
      attrs: { 'aria-labelledby': 'ev-title', novalidate: true },
      on: {
        submit: (ev: Event) => {
          ev.preventDefault();
          void ctrl.create();
        },
      },
    },
    [
      h('h2#ev-title', 'New evening'),
      h('label', { attrs: { for: 'ev-name' } }, 'Name'),
      h('input#ev-name', { attrs: { name: 'name', placeholder: 'Friday blitz', maxlength: 120 }, props: { value: f.name }, on: { input: (ev: Event) => set({ name: value(ev) }) } }),
      h('label', { attrs: { for: 'ev-format' } }, 'Format'),
      h(
        'select#ev-format',
        { props: { value: f.format }, on: { change: (ev: Event) => set({ format: value(ev) }) } },
        FORMATS.map((x) => h('option', { attrs: { value: x.id }, props: { selected: x.id === f.format } }, x.name)),
      ),
      ...(needsRounds(f.format)
        ? [
            h('label', { attrs: { for: 'ev-rounds' } }, 'Rounds'),
            h('input#ev-rounds', { attrs: { name: 'rounds', inputmode: 'numeric' }, props: { value: f.rounds }, on: { input: (ev: Event) => set({ rounds: value(ev) }) } }),
          ]
        : [h('small', 'A round robin has as many rounds as its players need.')]),
      h('label', { attrs: { for: 'ev-rules' } }, 'Ruleset'),
      rulesSelect(m.rulesets, 'ev-rules', f.rules, (rules) => set({ rules })),
      h('span.quicklabel', 'Quick'),
      quickButtons(m.rulesets, f.rules, f.time_control, (rules, time_control) => ctrl.dispatch({ type: 'quick', rules, time_control }), 'ev-tc'),
      m.ruleNote ? h('p.rule-note', { attrs: { role: 'status' } }, m.ruleNote) : null,
      h('label', { attrs: { for: 'ev-tc' } }, 'Time control'),
      h('input#ev-tc', {
        attrs: { name: 'time_control', list: 'ev-tc-list', 'aria-describedby': 'ev-tc-help' },
        props: { value: f.time_control },
        on: { input: (ev: Event) => set({ time_control: value(ev) }) },
      }),
      controlsList(m.rulesets, 'ev-tc-list', f.rules),
      h('small#ev-tc-help', notation(m.rulesets, f.rules)),
      h('fieldset.choice', [
        h('legend', 'The games are played'),
        radio('ev-play', f.play, 'board', 'on the club’s own boards (results reported from the players’ phones or entered by you)', (v) => set({ play: v as SetupForm['play'] })),
        radio('ev-play', f.play, 'server', 'on this server’s boards (each game gets its own board and clock)', (v) => set({ play: v as SetupForm['play'] })),
      ]),
      f.play === 'server'
        ? h('fieldset.choice', [
            h('legend', 'Mode of the server’s games'),
            radio('ev-mode', f.mode, 'otb', 'over the board (illegal moves stand until claimed)', (v) => set({ mode: v as SetupForm['mode'] })),
            radio('ev-mode', f.mode, 'online', 'online (legal moves only, automatic flagging)', (v) => set({ mode: v as SetupForm['mode'] })),
          ])
        : h('fieldset.choice', [
            h('legend', 'A result reported from the phones counts'),
            radio('ev-confirm', f.confirm, 'one', 'when either player reports it', (v) => set({ confirm: v as SetupForm['confirm'] })),
            radio('ev-confirm', f.confirm, 'both', 'when both players report the same (you settle a disagreement)', (v) => set({ confirm: v as SetupForm['confirm'] })),
          ]),
      h('label.check', [
        h('input#ev-auto', { attrs: { type: 'checkbox' }, props: { checked: f.auto }, on: { change: (ev: Event) => set({ auto: (ev.target as HTMLInputElement).checked }) } }),
        ' Pair the next round by itself the moment the last result of a round is in',
      ]),
      h('h3.details-title', 'For the rating reports and the exports'),
      h('small', 'PGN, TRF and the US Chess files carry these. Leave blank what you do not have; you can change them later in the console.'),
      ...detailsFields('ev', f.details, (patch) => set({ details: { ...ctrl.model.form.details, ...patch } })),
      h('div.buttons', [h('button.primary', { attrs: { type: 'submit', disabled: m.busy || !m.rulesets } }, m.busy ? 'Creating…' : 'Create the evening')]),
      h('small', 'Next comes the director console, where you enter the players (one by one or a CSV or TRF file). Its link holds your director’s token: keep it.'),
      h('p.error', { attrs: { role: 'alert' } }, m.error ?? ''),
    ],
  );
}

export function mountEventSetup(root: HTMLElement): () => void {
  const patch = init([classModule, propsModule, attributesModule, eventListenersModule]);
  const mountPoint = document.createElement('div');
  root.replaceChildren(mountPoint);
  let vnode: VNode | HTMLElement = mountPoint;
  const ctrl: SetupCtrl = new SetupCtrl(() => render());
  const render = (): void => {
    vnode = patch(
      vnode,
      h('div#app', [
        h('header.top', [h('a.brand', { attrs: { href: '/' } }, 'flagfall'), h('span.game-title', 'a new club evening')]),
        h('main.event-setup', [setupForm(ctrl), h('p', [h('a', { attrs: { href: '/' } }, 'Back to the lobby')])]),
      ]),
    );
  };
  ctrl.start();
  render();
  return () => {};
}
