// The lobby (`/`): create a game and share its links, open or accept a challenge, practise
// against the computer, watch live games, read finished ones. As the game page: a model
// changed only by one reducer (`reduceLobby`), small snabbdom views, one render per
// animation frame. The rulesets, their time-control notation and the quick buttons come
// from the server (`GET /api/rulesets`).
import qrcode from 'qrcode-generator';
import { attributesModule, classModule, eventListenersModule, h, init, propsModule, type VNode } from 'snabbdom';
import { acceptChallenge, createChallenge, createGame, createPractice, getRulesets, listChallenges, listGames, type Challenge } from './api';
import { rememberDirectorGame } from './ladder';
import { challengeText, gameSummaryText } from './lobbyview';
import { copyButton } from './copybutton';
import { controlsList, notation, quickButtons, rulesSelect } from './tcform';
import { createBody, initialLobby, reduceLobby, type GameForm, type LobbyAction, type LobbyModel, type PracticeForm } from './lobbymodel';
import type { Color, Mode } from './protocol';

class LobbyCtrl {
  model = initialLobby();
  private frame = 0;
  private timers: ReturnType<typeof setInterval>[] = [];

  constructor(private readonly onRedraw: () => void) {}

  dispatch(a: LobbyAction): void {
    this.model = reduceLobby(this.model, a);
    this.redraw();
  }

  redraw(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.onRedraw();
    });
  }

  start(): void {
    void getRulesets().then(
      (r) => this.dispatch({ type: 'rulesets', rulesets: r }),
      (e: Error) => this.dispatch({ type: 'rulesets-error', error: e.message }),
    );
    void this.fillLists();
    void this.fillChallenges();
    this.timers.push(setInterval(() => void this.fillLists(), 10_000));
    this.timers.push(setInterval(() => void this.fillChallenges(), 2_000));
  }

  stop(): void {
    this.timers.forEach(clearInterval);
    cancelAnimationFrame(this.frame);
  }

  async fillLists(): Promise<void> {
    for (const status of ['live', 'finished'] as const) {
      try {
        this.dispatch({ type: 'games', status, games: await listGames(status) });
      } catch (e) {
        this.dispatch({ type: 'games-error', status, error: (e as Error).message });
      }
    }
  }

  async fillChallenges(): Promise<void> {
    try {
      this.dispatch({ type: 'challenges', challenges: await listChallenges() });
    } catch (e) {
      this.dispatch({ type: 'challenge-error', error: `Could not load the challenges: ${(e as Error).message}` });
    }
  }

  async create(): Promise<void> {
    const f = this.model.form;
    const mine: Color = f.color === 'random' ? (crypto.getRandomValues(new Uint8Array(1))[0] & 1 ? 'white' : 'black') : f.color;
    this.dispatch({ type: 'busy', on: true });
    try {
      const answer = await createGame(createBody(f, mine));
      rememberDirectorGame(answer.id, answer.tokens.director);
      this.dispatch({ type: 'created', answer, mine });
      void this.fillLists();
    } catch (e) {
      this.dispatch({ type: 'error', error: `Could not create the game: ${(e as Error).message}` });
    }
  }

  async openChallenge(): Promise<void> {
    const f = this.model.form;
    this.dispatch({ type: 'error', error: null });
    try {
      // A challenge's game has no director (the server refuses one): the checkbox is for
      // games created with their links.
      const c = await createChallenge({ rules: f.rules, time_control: f.time_control.trim(), mode: f.mode, color: f.color, name: f.name.trim() || undefined });
      location.assign(c.url);
    } catch (e) {
      this.dispatch({ type: 'error', error: `Could not open the challenge: ${(e as Error).message}` });
    }
  }

  async accept(c: Challenge): Promise<void> {
    this.dispatch({ type: 'challenge-error', error: null });
    try {
      const a = await acceptChallenge(c.id, this.model.form.name.trim());
      location.assign(a.url);
    } catch (e) {
      this.dispatch({ type: 'challenge-error', error: `Could not accept: ${(e as Error).message}` });
      void this.fillChallenges();
    }
  }

  async practise(): Promise<void> {
    const p = this.model.practice;
    const computer: Color = p.color === 'white' ? 'black' : 'white';
    this.dispatch({ type: 'practice-error', error: null });
    try {
      const ans = await createPractice(
        { rules: p.rules, time_control: p.time_control.trim(), mode: 'otb', director: false, [computer]: 'Computer' },
        { color: computer, level: p.level, training: p.training },
      );
      location.assign(ans.urls[p.color]);
    } catch (e) {
      this.dispatch({ type: 'practice-error', error: `Could not start the game: ${(e as Error).message}` });
    }
  }
}

// ----- views -----------------------------------------------------------------------------

const absolute = (path: string): string => new URL(path, location.origin).toString();

function qrSvg(text: string): string {
  const q = qrcode(0, 'M');
  q.addData(text);
  q.make();
  return q.createSvgTag({ cellSize: 4, margin: 2, scalable: true });
}

const value = (ev: Event): string => (ev.target as HTMLInputElement).value;

function linkRow(label: string, url: string, hint: string): VNode {
  return h('div.linkrow', [
    h('span.linklabel', label),
    h('input.link', { attrs: { type: 'text', readonly: true, 'aria-label': `${label} link` }, props: { value: url } }),
    copyButton(url, `copy the ${label} link`),
    h('a.open', { attrs: { href: url } }, 'Open'),
    h('small', hint),
  ]);
}

function createdV(m: LobbyModel): VNode {
  const c = m.created;
  if (!c) return h('section.created', { attrs: { 'aria-live': 'polite' } });
  const { answer, mine } = c;
  const opp: Color = mine === 'white' ? 'black' : 'white';
  const oppUrl = absolute(answer.urls[opp]);
  return h('section.created', { attrs: { 'aria-live': 'polite' } }, [
    h('h2', `Game ${answer.id} is ready`),
    linkRow(`You (${mine})`, absolute(answer.urls[mine]), 'keep this one: it plays your side'),
    linkRow(`Opponent (${opp})`, oppUrl, 'send this, or let them scan the code'),
    linkRow('Director', absolute(answer.urls.director), 'for whoever runs the event'),
    linkRow('Spectators', absolute(answer.urls.spectator), 'anyone may watch'),
    h('div.qr', { attrs: { role: 'img', 'aria-label': `QR code of the ${opp} player's link` }, props: { innerHTML: qrSvg(oppUrl) } }),
  ]);
}

function gameForm(ctrl: LobbyCtrl): VNode {
  const m = ctrl.model;
  const f = m.form;
  const set = (form: Partial<GameForm>) => ctrl.dispatch({ type: 'form', form });
  return h(
    'form.create',
    {
      attrs: { 'aria-labelledby': 'create-title' },
      on: {
        submit: (ev: Event) => {
          ev.preventDefault();
          void ctrl.create();
        },
      },
    },
    [
      h('h2#create-title', 'New game'),
      h('label', { attrs: { for: 'rules' } }, 'Ruleset'),
      rulesSelect(ctrl.model.rulesets, 'rules', f.rules, (rules) => set({ rules })),
      h('span.quicklabel', 'Quick'),
      quickButtons(m.rulesets, f.rules, f.time_control, (rules, time_control) => ctrl.dispatch({ type: 'quick', rules, time_control }), 'tc'),
      h('label', { attrs: { for: 'tc' } }, 'Time control'),
      h('input#tc', {
        attrs: { name: 'time_control', list: 'tc-list', required: true, 'aria-describedby': 'tc-help' },
        props: { value: f.time_control },
        on: { input: (ev: Event) => set({ time_control: value(ev) }) },
      }),
      controlsList(m.rulesets, 'tc-list', f.rules),
      h('small#tc-help', notation(m.rulesets, f.rules)),
      h('label', { attrs: { for: 'mode' } }, 'Mode'),
      h('select#mode', { props: { value: f.mode }, on: { change: (ev: Event) => set({ mode: value(ev) as Mode }) } }, [
        h('option', { attrs: { value: 'otb' }, props: { selected: f.mode === 'otb' } }, 'Over the board (illegal moves stand until claimed)'),
        h('option', { attrs: { value: 'online' }, props: { selected: f.mode === 'online' } }, 'Online (legal moves only, automatic flagging)'),
      ]),
      h('label', { attrs: { for: 'color' } }, 'You play'),
      h(
        'select#color',
        { props: { value: f.color }, on: { change: (ev: Event) => set({ color: value(ev) as GameForm['color'] }) } },
        (['white', 'black', 'random'] as const).map((c) => h('option', { attrs: { value: c }, props: { selected: f.color === c } }, c[0].toUpperCase() + c.slice(1))),
      ),
      h('label', { attrs: { for: 'myname' } }, 'Your name'),
      h('input#myname', { attrs: { name: 'name', placeholder: 'optional', maxlength: 60 }, props: { value: f.name }, on: { input: (ev: Event) => set({ name: value(ev) }) } }),
      h('label', { attrs: { for: 'oppname' } }, 'Opponent'),
      h('input#oppname', { attrs: { name: 'opponent', placeholder: 'optional', maxlength: 60 }, props: { value: f.opponent }, on: { input: (ev: Event) => set({ opponent: value(ev) }) } }),
      h('label.check', [
        h('input#director', { attrs: { type: 'checkbox' }, props: { checked: f.director }, on: { change: (ev: Event) => set({ director: (ev.target as HTMLInputElement).checked }) } }),
        ' A director rules on claims that need one',
      ]),
      h('div.buttons', [
        h('button.primary', { attrs: { type: 'submit', disabled: m.busy || !m.rulesets } }, 'Create game'),
        h('button.open-challenge', { attrs: { type: 'button', disabled: !m.rulesets }, on: { click: () => void ctrl.openChallenge() } }, 'Open challenge'),
      ]),
      h('small', 'An open challenge waits in the lobby for anyone to accept; your name and colour go with it. Its game has no director (the box above is for a created game).'),
      h('p.error', { attrs: { role: 'alert' } }, m.error ?? m.rulesetsError ?? ''),
    ],
  );
}

function practiceForm(ctrl: LobbyCtrl): VNode {
  const m = ctrl.model;
  const p = m.practice;
  const set = (practice: Partial<PracticeForm>) => ctrl.dispatch({ type: 'practice', practice });
  return h(
    'form.create.practice',
    {
      attrs: { 'aria-labelledby': 'practice-title' },
      on: {
        submit: (ev: Event) => {
          ev.preventDefault();
          void ctrl.practise();
        },
      },
    },
    [
      h('h2#practice-title', 'Practice against the computer'),
      h('label', { attrs: { for: 'p-rules' } }, 'Ruleset'),
      rulesSelect(ctrl.model.rulesets, 'p-rules', p.rules, (rules) => set({ rules })),
      h('label', { attrs: { for: 'p-tc' } }, 'Time control'),
      h('input#p-tc', { attrs: { list: 'p-tc-list', required: true }, props: { value: p.time_control }, on: { input: (ev: Event) => set({ time_control: value(ev) }) } }),
      controlsList(m.rulesets, 'p-tc-list', p.rules),
      h('label', { attrs: { for: 'p-color' } }, 'You play'),
      h(
        'select#p-color',
        { props: { value: p.color }, on: { change: (ev: Event) => set({ color: value(ev) as Color }) } },
        (['white', 'black'] as const).map((c) => h('option', { attrs: { value: c }, props: { selected: p.color === c } }, c === 'white' ? 'White' : 'Black')),
      ),
      h('label', { attrs: { for: 'p-level' } }, 'Strength'),
      h('span.range', [
        h('input#p-level', {
          attrs: { type: 'range', min: 1, max: 20, 'aria-describedby': 'p-level-out' },
          props: { value: String(p.level) },
          on: { input: (ev: Event) => set({ level: Number(value(ev)) }) },
        }),
        ' ',
        h('output#p-level-out', { attrs: { for: 'p-level' } }, String(p.level)),
      ]),
      h('label.check', [
        h('input#p-training', { attrs: { type: 'checkbox' }, props: { checked: p.training }, on: { change: (ev: Event) => set({ training: (ev.target as HTMLInputElement).checked }) } }),
        ' Training: the computer sometimes plays an illegal move, lets its flag fall or repeats the position — claim it',
      ]),
      h('button.primary', { attrs: { type: 'submit', disabled: !m.rulesets } }, 'Play the computer'),
      h('p.error', { attrs: { role: 'alert' } }, m.practiceError ?? ''),
    ],
  );
}

function challengesV(ctrl: LobbyCtrl): VNode[] {
  const m = ctrl.model;
  const list = m.challenges;
  const items =
    list === null
      ? [h('li.empty', 'Loading…')]
      : list.length === 0
        ? [h('li.empty', 'No open challenge: open one with the form.')]
        : list.slice(0, 30).map((c) =>
            h('li', { key: c.id, attrs: { 'data-challenge': c.id } }, [
              challengeText(c),
              ' ',
              h(
                'button.accept-challenge',
                { attrs: { type: 'button', 'aria-label': `accept ${c.name || 'the'} challenge (${c.rules} ${c.time_control})` }, on: { click: () => void ctrl.accept(c) } },
                'Accept',
              ),
            ]),
          );
  return [
    h('h2', 'Open challenges'),
    h('ul.challenges', { attrs: { 'aria-label': 'open challenges' } }, items),
    h('p.error', { attrs: { role: 'alert' } }, m.challengeError ?? ''),
    h('small', 'Accepting plays under the name in “Your name”.'),
  ];
}

function gamesV(m: LobbyModel, status: 'live' | 'finished'): VNode {
  const games = m[status];
  const err = m.listError[status];
  const finished = status === 'finished';
  const items = err
    ? [h('li.error', `Could not load the list: ${err}`)]
    : games === null
      ? [h('li.empty', 'Loading…')]
      : games.length === 0
        ? [h('li.empty', finished ? 'No finished game yet.' : 'No game is being played.')]
        : games.slice(0, 50).map((g) => {
            const { names, what } = gameSummaryText(g);
            const href = `/watch/${encodeURIComponent(g.id)}`;
            return h('li', { key: g.id }, [
              h('a', { attrs: { href } }, names),
              what ? ` · ${what}` : '',
              finished ? ` · ${g.result ?? ''} · ` : ' · ',
              finished ? h('a', { attrs: { href: `/api/games/${encodeURIComponent(g.id)}/pgn`, download: `${g.id}.pgn` } }, 'PGN') : h('a', { attrs: { href } }, 'watch'),
            ]);
          });
  return h(`ul.games.${status}`, { attrs: { 'aria-label': `${status} games` } }, items);
}

function lobbyView(ctrl: LobbyCtrl): VNode {
  const m = ctrl.model;
  return h('div#app', [
    h('header.top', [h('a.brand', { attrs: { href: '/' } }, 'flagfall'), h('span.game-title', 'over-the-board blitz, with its rules'), h('a.evening-link', { attrs: { href: '/events/new' } }, 'New club evening')]),
    h('main.lobby', [
      h('div.col', [gameForm(ctrl), createdV(m), practiceForm(ctrl)]),
      h('div.col', [
        h('h2', 'Club evenings'),
        h('p', [h('a.button.new-evening', { attrs: { href: '/events/new' } }, 'New evening'), ' a Swiss or a round robin: pairings, results and standings, on the club’s boards or this server’s']),
        ...challengesV(ctrl),
        h('h2', 'Live games'),
        gamesV(m, 'live'),
        h('h2', 'Finished games'),
        gamesV(m, 'finished'),
        h('p', [h('a.console', { attrs: { href: '/direct/' } }, 'Director console'), ' (the evenings and games created in this browser)']),
      ]),
    ]),
  ]);
}

const patch = init([classModule, attributesModule, propsModule, eventListenersModule]);

export function mountLobby(root: HTMLElement): () => void {
  const mountPoint = document.createElement('div');
  root.replaceChildren(mountPoint);
  let vnode: VNode | HTMLElement = mountPoint;
  const ctrl: LobbyCtrl = new LobbyCtrl(() => {
    vnode = patch(vnode, lobbyView(ctrl));
  });
  ctrl.start();
  ctrl.redraw();
  return () => ctrl.stop();
}
