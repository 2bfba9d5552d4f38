// The lobby (`/`): create a game and share its links, watch live games, read finished ones.
import qrcode from 'qrcode-generator';
import { acceptChallenge, createChallenge, createGame, createPractice, listChallenges, listGames, type Challenge, type CreateAnswer, type GameSummary } from './api';
import { copyButton, h } from './dom';
import { rememberDirectorGame } from './ladder';
import { challengeText, gameSummaryText } from './lobbyview';

/** The built-in rulesets and time controls in each one's own notation (RULES.md §1). */
export const RULESETS: { id: string; name: string; controls: string[] }[] = [
  { id: 'uscf-2020', name: 'US Chess 2020 (ch. 11)', controls: ['G/5;d0', 'G/3;d2', 'G/5;d3', 'G/3;inc2'] },
  { id: 'fide-b3', name: 'FIDE Appendix B.3', controls: ['3+2', '5+0', '5+3', '3+0'] },
  { id: 'blitz-2006', name: '2006 Blitz Rules', controls: ['5|0', '3|2', '5|3'] },
  { id: 'uscf-classic', name: 'US Chess blitz (earlier edition)', controls: ['G/5', 'G/5;d3', 'G/3;d2'] },
  { id: 'club-ilc', name: 'Club blitz with ILC', controls: ['G/5', 'G/3', 'G/5;d0'] },
];

/** The quick time-control buttons: lichess's usual blitz under FIDE, and the US rules' own. */
const QUICK: [string, string][] = [
  ['fide-b3', '1+0'],
  ['fide-b3', '2+1'],
  ['fide-b3', '3+0'],
  ['fide-b3', '3+2'],
  ['fide-b3', '5+0'],
  ['uscf-2020', 'G/5;d0'],
  ['uscf-2020', 'G/3;d2'],
];

function absolute(path: string): string {
  return new URL(path, location.origin).toString();
}

function qrSvg(text: string): string {
  const q = qrcode(0, 'M');
  q.addData(text);
  q.make();
  return q.createSvgTag({ cellSize: 4, margin: 2, scalable: true });
}

function linkRow(label: string, url: string, hint: string): HTMLElement {
  const input = h('input', { type: 'text', readonly: true, value: url, 'aria-label': `${label} link`, class: 'link' }) as HTMLInputElement;
  return h('div', { class: 'linkrow' }, h('span', { class: 'linklabel' }, label), input, copyButton(() => url, `copy the ${label} link`), h('a', { href: url, class: 'open' }, 'Open'), h('small', {}, hint));
}

export function showCreated(out: HTMLElement, ans: CreateAnswer, mine: 'white' | 'black'): void {
  const opp = mine === 'white' ? 'black' : 'white';
  const oppUrl = absolute(ans.urls[opp]);
  const qr = h('div', { class: 'qr', role: 'img', 'aria-label': `QR code of the ${opp} player's link` });
  qr.innerHTML = qrSvg(oppUrl);
  rememberDirectorGame(ans.id, ans.tokens.director);
  out.replaceChildren(
    h('h2', {}, `Game ${ans.id} is ready`),
    linkRow(`You (${mine})`, absolute(ans.urls[mine]), 'keep this one: it plays your side'),
    linkRow(`Opponent (${opp})`, oppUrl, 'send this, or let them scan the code'),
    linkRow('Director', absolute(ans.urls.director), 'for whoever runs the event'),
    linkRow('Spectators', absolute(ans.urls.spectator), 'anyone may watch'),
    qr,
  );
}

function gameLine(g: GameSummary, finished: boolean): HTMLElement {
  const { names, what } = gameSummaryText(g);
  const href = `/watch/${encodeURIComponent(g.id)}`;
  return h(
    'li',
    {},
    h('a', { href }, names),
    what ? ` · ${what}` : '',
    finished ? ` · ${g.result ?? ''} · ` : ' · ',
    finished ? h('a', { href: `/api/games/${encodeURIComponent(g.id)}/pgn`, download: `${g.id}.pgn` }, 'PGN') : h('a', { href }, 'watch'),
  );
}

async function fillList(el: HTMLElement, status: 'live' | 'finished'): Promise<void> {
  try {
    const games = await listGames(status);
    el.replaceChildren(...(games.length ? games.slice(0, 50).map((g) => gameLine(g, status === 'finished')) : [h('li', { class: 'empty' }, status === 'live' ? 'No game is being played.' : 'No finished game yet.')]));
  } catch (e) {
    el.replaceChildren(h('li', { class: 'error' }, `Could not load the list: ${(e as Error).message}`));
  }
}

export function mountLobby(root: HTMLElement): () => void {
  const rules = h('select', { id: 'rules', name: 'rules' }, ...RULESETS.map((r) => h('option', { value: r.id }, `${r.name} (${r.id})`))) as HTMLSelectElement;
  const tc = h('input', { id: 'tc', name: 'time_control', list: 'tc-list', value: RULESETS[0].controls[0], required: true, 'aria-describedby': 'tc-help' }) as HTMLInputElement;
  const tcList = h('datalist', { id: 'tc-list' });
  const fillControls = () => {
    const r = RULESETS.find((x) => x.id === rules.value) ?? RULESETS[0];
    tcList.replaceChildren(...r.controls.map((c) => h('option', { value: c })));
    tc.value = r.controls[0];
  };
  rules.addEventListener('change', fillControls);
  fillControls();
  const quick = h(
    'div',
    { class: 'quick', role: 'group', 'aria-label': 'quick time controls' },
    ...QUICK.map(([r, t]) =>
      h(
        'button',
        {
          type: 'button',
          class: 'quick-tc',
          'data-tc': t,
          title: `${t} under ${r}`,
          onclick: () => {
            rules.value = r;
            fillControls();
            tc.value = t;
            tc.focus();
          },
        },
        t,
      ),
    ),
  );
  const mode = h('select', { id: 'mode', name: 'mode' }, h('option', { value: 'otb' }, 'Over the board (illegal moves stand until claimed)'), h('option', { value: 'online' }, 'Online (legal moves only, automatic flagging)')) as HTMLSelectElement;
  const color = h('select', { id: 'color', name: 'color' }, h('option', { value: 'white' }, 'White'), h('option', { value: 'black' }, 'Black'), h('option', { value: 'random' }, 'Random')) as HTMLSelectElement;
  const myName = h('input', { id: 'myname', name: 'name', placeholder: 'optional', maxlength: 60 }) as HTMLInputElement;
  const oppName = h('input', { id: 'oppname', name: 'opponent', placeholder: 'optional', maxlength: 60 }) as HTMLInputElement;
  const withDirector = h('input', { id: 'director', type: 'checkbox', checked: true }) as HTMLInputElement;
  const errorEl = h('p', { class: 'error', role: 'alert' });
  const created = h('section', { class: 'created', 'aria-live': 'polite' });
  const openBtn = h('button', { type: 'button', class: 'open-challenge' }, 'Open challenge');

  const form = h(
    'form',
    { class: 'create', 'aria-labelledby': 'create-title' },
    h('h2', { id: 'create-title' }, 'New game'),
    h('label', { for: 'rules' }, 'Ruleset'),
    rules,
    h('span', { class: 'quicklabel' }, 'Quick'),
    quick,
    h('label', { for: 'tc' }, 'Time control'),
    tc,
    tcList,
    h('small', { id: 'tc-help' }, 'The ruleset\'s notation: G/5;d3 (US delay), 3+2 (increment), 5|0.'),
    h('label', { for: 'mode' }, 'Mode'),
    mode,
    h('label', { for: 'color' }, 'You play'),
    color,
    h('label', { for: 'myname' }, 'Your name'),
    myName,
    h('label', { for: 'oppname' }, 'Opponent'),
    oppName,
    h('label', { class: 'check' }, withDirector, ' A director rules on claims that need one'),
    h('div', { class: 'buttons' }, h('button', { type: 'submit', class: 'primary' }, 'Create game'), openBtn),
    h('small', {}, 'An open challenge waits in the lobby for anyone to accept; your name and colour go with it. Its game has no director (the box above is for a created game).'),
    errorEl,
  );
  openBtn.addEventListener('click', async () => {
    errorEl.textContent = '';
    created.replaceChildren();
    // A challenge's game has no director (the server refuses one): the checkbox is for
    // games created with their links.
    const body = { rules: rules.value, time_control: tc.value.trim(), mode: mode.value as 'otb' | 'online', color: color.value as 'white' | 'black' | 'random', name: myName.value.trim() || undefined };
    try {
      const c = await createChallenge(body);
      location.assign(c.url);
    } catch (e) {
      errorEl.textContent = `Could not open the challenge: ${(e as Error).message}`;
    }
  });
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    errorEl.textContent = '';
    const mine: 'white' | 'black' = color.value === 'random' ? (crypto.getRandomValues(new Uint8Array(1))[0] & 1 ? 'white' : 'black') : (color.value as 'white' | 'black');
    const body: Record<string, unknown> = { rules: rules.value, time_control: tc.value.trim(), mode: mode.value, director: withDirector.checked };
    const my = myName.value.trim();
    const op = oppName.value.trim();
    if (my) body[mine] = my;
    if (op) body[mine === 'white' ? 'black' : 'white'] = op;
    try {
      const ans = await createGame(body as never);
      showCreated(created, ans, mine);
      void fillList(live, 'live');
    } catch (e) {
      // An older game's links beside a new error would read as this attempt's result.
      created.replaceChildren();
      errorEl.textContent = `Could not create the game: ${(e as Error).message}`;
    }
  });

  // Practice against the computer.
  const pRules = h('select', { id: 'p-rules' }, ...RULESETS.map((r) => h('option', { value: r.id }, `${r.name} (${r.id})`))) as HTMLSelectElement;
  const pTc = h('input', { id: 'p-tc', list: 'p-tc-list', required: true }) as HTMLInputElement;
  const pTcList = h('datalist', { id: 'p-tc-list' });
  const pFill = () => {
    const r = RULESETS.find((x) => x.id === pRules.value) ?? RULESETS[0];
    pTcList.replaceChildren(...r.controls.map((c) => h('option', { value: c })));
    pTc.value = r.controls[0];
  };
  pRules.addEventListener('change', pFill);
  pFill();
  const pColor = h('select', { id: 'p-color' }, h('option', { value: 'white' }, 'White'), h('option', { value: 'black' }, 'Black')) as HTMLSelectElement;
  const pLevel = h('input', { id: 'p-level', type: 'range', min: 1, max: 20, value: 5, 'aria-describedby': 'p-level-out' }) as HTMLInputElement;
  const pLevelOut = h('output', { id: 'p-level-out', for: 'p-level' }, '5');
  pLevel.addEventListener('input', () => (pLevelOut.textContent = pLevel.value));
  const pTraining = h('input', { id: 'p-training', type: 'checkbox', checked: true }) as HTMLInputElement;
  const pError = h('p', { class: 'error', role: 'alert' });
  const practice = h(
    'form',
    { class: 'create practice', 'aria-labelledby': 'practice-title' },
    h('h2', { id: 'practice-title' }, 'Practice against the computer'),
    h('label', { for: 'p-rules' }, 'Ruleset'),
    pRules,
    h('label', { for: 'p-tc' }, 'Time control'),
    pTc,
    pTcList,
    h('label', { for: 'p-color' }, 'You play'),
    pColor,
    h('label', { for: 'p-level' }, 'Strength'),
    h('span', { class: 'range' }, pLevel, ' ', pLevelOut),
    h('label', { class: 'check' }, pTraining, ' Training: the computer sometimes plays an illegal move, lets its flag fall or repeats the position — claim it'),
    h('button', { type: 'submit', class: 'primary' }, 'Play the computer'),
    pError,
  );
  practice.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    pError.textContent = '';
    const mine = pColor.value as 'white' | 'black';
    const computer = mine === 'white' ? 'black' : 'white';
    try {
      const ans = await createPractice(
        { rules: pRules.value, time_control: pTc.value.trim(), mode: 'otb', director: false, [computer]: 'Computer' },
        { color: computer, level: Number(pLevel.value), training: pTraining.checked },
      );
      location.assign(ans.urls[mine]);
    } catch (e) {
      pError.textContent = `Could not start the game: ${(e as Error).message}`;
    }
  });

  const challenges = h('ul', { class: 'challenges', 'aria-label': 'open challenges' });
  const challengeError = h('p', { class: 'error', role: 'alert' });
  const fillChallenges = async () => {
    try {
      const open = await listChallenges();
      const key = JSON.stringify(open.map((c) => c.id));
      if ((challenges as HTMLElement & { _key?: string })._key === key) return;
      (challenges as HTMLElement & { _key?: string })._key = key;
      challenges.replaceChildren(...(open.length ? open.slice(0, 30).map((c) => challengeLine(c)) : [h('li', { class: 'empty' }, 'No open challenge: open one with the form.')]));
    } catch (e) {
      challenges.replaceChildren(h('li', { class: 'error' }, `Could not load the challenges: ${(e as Error).message}`));
    }
  };
  const challengeLine = (c: Challenge) =>
    h(
      'li',
      { 'data-challenge': c.id },
      challengeText(c),
      ' ',
      h(
        'button',
        {
          type: 'button',
          class: 'accept-challenge',
          'aria-label': `accept ${c.name || 'the'} challenge (${c.rules} ${c.time_control})`,
          onclick: async () => {
            challengeError.textContent = '';
            try {
              const a = await acceptChallenge(c.id, myName.value.trim());
              location.assign(a.url);
            } catch (e) {
              challengeError.textContent = `Could not accept: ${(e as Error).message}`;
              void fillChallenges();
            }
          },
        },
        'Accept',
      ),
    );
  const live = h('ul', { class: 'games live', 'aria-label': 'live games' });
  const finished = h('ul', { class: 'games finished', 'aria-label': 'finished games' });
  root.replaceChildren(
    h('header', { class: 'top' }, h('a', { href: '/', class: 'brand' }, 'flagfall'), h('span', { class: 'game-title' }, 'over-the-board blitz, with its rules')),
    h(
      'main',
      { class: 'lobby' },
      h('div', { class: 'col' }, form, created, practice),
      h('div', { class: 'col' }, h('h2', {}, 'Open challenges'), challenges, challengeError, h('small', {}, 'Accepting plays under the name in “Your name”.'), h('h2', {}, 'Live games'), live, h('h2', {}, 'Finished games'), finished, h('p', {}, h('a', { href: '/direct/', class: 'console' }, 'Director console'), ' (games created in this browser)')),
    ),
  );
  void fillList(live, 'live');
  void fillList(finished, 'finished');
  void fillChallenges();
  const timer = setInterval(() => {
    void fillList(live, 'live');
    void fillList(finished, 'finished');
  }, 10_000);
  const challengeTimer = setInterval(() => void fillChallenges(), 2_000);
  return () => {
    clearInterval(timer);
    clearInterval(challengeTimer);
  };
}
