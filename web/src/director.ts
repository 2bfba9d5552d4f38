// The director console (`/direct/{id}?token=`, `/direct`): every live game whose director
// link this browser holds, as a small board with clocks, pending claims and the director's
// actions. Director tokens are per game; the console remembers them in localStorage.
import { Chessground } from 'chessground';
import type { Api as CgApi } from 'chessground/api';
import type { Key } from 'chessground/types';
import { wsUrl } from './api';
import { citation } from './citation';
import { formatClock, LiveClock, spokenClock } from './clock';
import { browserSocket, Connection } from './connection';
import { h, renderOnce } from './dom';
import { calledText, initialModel, lastMoveSquares, reduce, resultText, rulingText, type Model } from './model';
import { REASON_TEXT, type Color, type GameState, type Pending } from './protocol';

const STORE = 'flagfall.director';

export function directorGames(): Record<string, string> {
  try {
    const v = JSON.parse(localStorage.getItem(STORE) ?? '{}');
    return v && typeof v === 'object' ? (v as Record<string, string>) : {};
  } catch {
    return {};
  }
}

export function rememberDirectorGame(id: string, token: string): void {
  const all = directorGames();
  all[id] = token;
  try {
    localStorage.setItem(STORE, JSON.stringify(all));
  } catch {
    /* not remembered */
  }
}

function forgetDirectorGame(id: string): void {
  const all = directorGames();
  delete all[id];
  localStorage.setItem(STORE, JSON.stringify(all));
}

export const OFFENCE_KINDS: [string, string][] = [
  ['two_hands', 'Two hands'],
  ['displaced_pieces', 'Displaced pieces'],
  ['knocked_clock', 'Knocked the clock'],
  ['touch_move', 'Touch move'],
  ['other', 'Other'],
];

export const PENALTY_TEXT: Record<string, string> = {
  warning: 'a warning',
  opponent_plus_minute: "one minute added to the opponent's clock",
  offender_minus_minute: "one minute taken from the offender's clock",
  forfeit: 'loss of the game',
  warning_or_minute_if_flag_down: 'a warning, or a minute if a flag is down',
  not_an_offence: 'nothing: not an offence in this ruleset',
};

export interface Ladder {
  ladder: string[];
  rule: string;
}

/**
 * The penalty the ruleset's ladder gives for the next offence of `kind` by a player who
 * already committed `count` of that kind: the ladder's last step repeats.
 */
export function nextPenalty(ladder: Ladder | undefined, count: number): { step: string; text: string; rule: string } | null {
  if (!ladder || ladder.ladder.length === 0) return null;
  const step = ladder.ladder[Math.min(count, ladder.ladder.length - 1)];
  return { step, text: PENALTY_TEXT[step] ?? step, rule: ladder.rule };
}

/** Offences already recorded against `player` of `kind`, counted from the stored script. */
export function offenceCount(scriptLines: string, player: Color, kind: string): number {
  let n = 0;
  for (const line of scriptLines.split('\n')) {
    if (!line.trim()) continue;
    try {
      const ev = JSON.parse(line) as { offence?: { player?: string; kind?: string } };
      if (ev.offence && ev.offence.player === player && ev.offence.kind === kind) n += 1;
    } catch {
      /* the setup line or a line the server wrote differently: not an offence */
    }
  }
  return n;
}

export function pendingText(p: Pending): string {
  const who = p.claimant === 'white' ? 'White' : 'Black';
  const rec = p.recommendation;
  const reasons = rec?.reasons ?? [];
  const advice = rec ? ` The assistant recommends: ${rec.grant ? 'grant' : 'deny'}${reasons.length ? ` (${reasons.join('; ')})` : ''}.` : '';
  return `${who} claims ${p.claim.replace('_', ' ')}; the clock is stopped.${advice}`;
}

function pendingRule(p: Pending): string | null {
  return p.recommendation?.rule ?? null;
}

function mountCard(list: HTMLElement, id: string, token: string): () => void {
  let model: Model = initialModel('director');
  const clock = new LiveClock();
  const boardEl = h('div', { class: 'board small', 'aria-label': `board of game ${id}` });
  const clocksEl = h('div', { class: 'dclocks' });
  const whiteClock = h('div', { class: 'clock', role: 'timer' });
  const blackClock = h('div', { class: 'clock', role: 'timer' });
  clocksEl.append(whiteClock, blackClock);
  const title = h('h2', {}, `Game ${id}`);
  const status = h('span', { class: 'conn', role: 'status' });
  const resultEl = h('p', { class: 'banner' });
  const pendingEl = h('div', { class: 'pending' });
  const calledEl = h('div', { class: 'called', role: 'alert' });
  const noticeEl = h('p', { class: 'notice', role: 'status', 'aria-live': 'polite' });
  const lastRuling = h('p', { class: 'lastruling' });
  const actions = h('div', { class: 'dactions' });
  const card = h(
    'article',
    { class: 'dcard', 'data-game': id },
    h('div', { class: 'dhead' }, title, status),
    h('div', { class: 'dbody' }, boardEl, h('div', { class: 'dinfo' }, clocksEl, resultEl, calledEl, pendingEl, noticeEl, lastRuling, actions)),
  );
  list.append(card);
  const cg: CgApi = Chessground(boardEl, { viewOnly: true, coordinates: false, animation: { enabled: false } });

  const conn = new Connection({
    url: wsUrl(id, token),
    open: browserSocket,
    onMessage: (msg) => {
      model = reduce(model, msg);
      if (model.state && (msg.type === 'state' || msg.type === 'event')) clock.update(model.state.clock, performance.now());
      render();
    },
    onStatus: (s, d) => {
      status.textContent = s === 'online' ? 'connected' : s === 'closed' ? `offline${d ? ': ' + d : ''}` : s === 'offline' ? 'offline, reconnecting…' : 'connecting…';
      status.className = `conn ${s === 'online' ? 'connected' : s}`;
    },
  });

  const send = (a: Record<string, unknown>) => conn.send(a);

  let ladders: Record<string, Ladder> | null = null;
  async function loadLadders(rules: string): Promise<void> {
    try {
      // The ruleset as data (`flagfall rules show --json`): its penalty ladders.
      const r = await fetch(`/api/rules/${encodeURIComponent(rules)}`);
      if (r.ok) ladders = ((await r.json()) as { penalties?: Record<string, Ladder> }).penalties ?? null;
    } catch {
      ladders = null;
    }
  }

  const offPlayer = h('select', { 'aria-label': 'offender' }, h('option', { value: 'white' }, 'White'), h('option', { value: 'black' }, 'Black')) as HTMLSelectElement;
  const offKind = h('select', { 'aria-label': 'offence' }, ...OFFENCE_KINDS.map(([k, t]) => h('option', { value: k }, t))) as HTMLSelectElement;
  const offPreview = h('span', { class: 'preview', 'aria-live': 'polite' });
  const offApply = h('button', { type: 'button', class: 'offence-apply' }, 'Record offence');
  async function preview(): Promise<void> {
    const s = model.state;
    if (!s) return;
    if (ladders === null) await loadLadders(s.setup.rules);
    let count = 0;
    try {
      const r = await fetch(`/api/games/${encodeURIComponent(id)}/script`);
      if (r.ok) count = offenceCount(await r.text(), offPlayer.value as Color, offKind.value);
    } catch {
      /* counted as a first offence */
    }
    const p = nextPenalty(ladders?.[offKind.value], count);
    offPreview.replaceChildren(
      p ? `${count === 0 ? 'First' : `Offence no. ${count + 1}`}: ${p.text} ` : 'The ruleset\'s ladder decides the penalty ',
      p ? citation(p.rule) ?? '' : '',
    );
  }
  offPlayer.addEventListener('change', () => void preview());
  offKind.addEventListener('change', () => void preview());
  offApply.addEventListener('click', () => {
    const who = offPlayer.value === 'white' ? nameOf('white') : nameOf('black');
    const kind = offKind.selectedOptions[0]?.textContent ?? offKind.value;
    const penalty = offPreview.textContent?.trim();
    if (!window.confirm(`Record the offence "${kind}" against ${who}?${penalty ? `\n${penalty}` : ''}`)) return;
    send({ offence: { player: offPlayer.value, kind: offKind.value } });
  });
  /** A player's name as the console shows it: the setup's name, else the colour. */
  function nameOf(c: Color): string {
    const s = model.state;
    const n = c === 'white' ? s?.setup.white : s?.setup.black;
    return n ? `${n} (${c})` : c === 'white' ? 'White' : 'Black';
  }

  const resultSel = h(
    'select',
    { 'aria-label': 'result to declare' },
    h('option', { value: '1-0' }, '1-0'),
    h('option', { value: '0-1' }, '0-1'),
    h('option', { value: '1/2-1/2' }, '½-½'),
    h('option', { value: 'cancel' }, 'Cancel the game (replay)'),
  ) as HTMLSelectElement;

  actions.append(
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'button', class: 'stop', onclick: () => send({ stop_clock: true }) }, 'Stop clock'),
      h('button', { type: 'button', class: 'start', onclick: () => send({ start_clock: true }) }, 'Start clock'),
    ),
    h(
      'div',
      { class: 'row' },
      ...(['white', 'black'] as Color[]).flatMap((c) => [
        h('button', { type: 'button', class: `add-${c}`, 'aria-label': `add a minute to ${c}`, onclick: () => send({ add_time: { color: c, ms: 60_000 } }) }, `${c === 'white' ? 'White' : 'Black'} +1:00`),
        h('button', { type: 'button', class: `sub-${c}`, 'aria-label': `take a minute from ${c}`, onclick: () => send({ add_time: { color: c, ms: -60_000 } }) }, `${c === 'white' ? 'White' : 'Black'} −1:00`),
      ]),
    ),
    h('div', { class: 'row' }, offPlayer, offKind, offApply),
    h('div', { class: 'row' }, offPreview),
    h(
      'div',
      { class: 'row' },
      resultSel,
      h(
        'button',
        {
          type: 'button',
          class: 'declare',
          onclick: () => {
            const what = resultSel.value === 'cancel' ? 'cancel the game' : `declare the result ${resultSel.selectedOptions[0]?.textContent ?? resultSel.value}`;
            if (!window.confirm(`Really ${what}? This ends the game.`)) return;
            send({ result: resultSel.value === 'cancel' ? 'cancel' : { result: resultSel.value, reason: 'director' } });
          },
        },
        'Declare',
      ),
    ),
  );

  function renderClocks(now: number): void {
    const s = model.state;
    if (!s) return;
    for (const [el, c] of [
      [whiteClock, 'white'],
      [blackClock, 'black'],
    ] as const) {
      const ms = clock.remaining(c, now);
      const down = ms <= 0 || s.flags.includes(c);
      const running = clock.running === c && s.result === '*';
      const name = (c === 'white' ? s.setup.white : s.setup.black) || (c === 'white' ? 'White' : 'Black');
      renderOnce(el as HTMLElement & { _key?: string }, `${formatClock(ms)}|${down}|${name}`, () => [
        h('span', { class: 'who' }, h('span', { class: `dot ${c}`, 'aria-hidden': 'true' }), name),
        h('span', { class: 'time' }, formatClock(ms)),
        down ? h('span', { class: 'flag', 'aria-hidden': 'true' }, '⚑') : '',
      ]);
      el.classList.toggle('running', running);
      el.classList.toggle('down', down);
      el.setAttribute('aria-label', `${name} clock: ${spokenClock(ms)}`);
    }
  }

  let previewedAt = -1;
  function render(): void {
    const s: GameState | null = model.state;
    if (!s) return;
    title.textContent = `${s.setup.white || 'Anonymous'} – ${s.setup.black || 'Anonymous'} · ${s.setup.rules} ${s.setup.time_control}`;
    const lm = lastMoveSquares(s);
    cg.set({ fen: s.fen.split(' ')[0], lastMove: lm ? (lm as Key[]) : undefined });
    const rt = resultText(s);
    renderOnce(resultEl as HTMLElement & { _key?: string }, `${s.result}|${s.reason}`, () => (rt ? [h('strong', {}, rt), s.reason ? ` by ${REASON_TEXT[s.reason] ?? s.reason} ` : ' ', citation(s.rule) ?? ''] : []));
    resultEl.hidden = !rt;
    const p = s.pending;
    renderOnce(pendingEl as HTMLElement & { _key?: string }, JSON.stringify(p), () =>
      p
        ? [
            h('p', {}, pendingText(p), ' ', citation(pendingRule(p)) ?? ''),
            h('button', { type: 'button', class: 'grant', onclick: () => send({ ruling: { grant: true } }) }, 'Grant'),
            h('button', { type: 'button', class: 'deny', onclick: () => send({ ruling: { grant: false } }) }, 'Deny'),
          ]
        : [],
    );
    pendingEl.hidden = !p;
    const ct = calledText(s);
    renderOnce(calledEl as HTMLElement & { _key?: string }, ct ?? '', () =>
      ct
        ? [
            h('p', {}, ct),
            h('button', { type: 'button', class: 'resume primary', onclick: () => send({ start_clock: true }) }, 'Resume clock'),
            h('button', { type: 'button', class: 'keep-stopped', onclick: () => send({ stop_clock: true }) }, 'Keep it stopped'),
          ]
        : [],
    );
    calledEl.hidden = !ct;
    // A game that calls comes to the top of the console.
    if (ct && !card.classList.contains('has-call')) list.prepend(card);
    card.classList.toggle('has-call', !!ct);
    const n = model.notice;
    noticeEl.textContent = n && n.tone === 'bad' ? n.text : '';
    noticeEl.hidden = !noticeEl.textContent;
    const last = s.rulings[s.rulings.length - 1];
    renderOnce(lastRuling as HTMLElement & { _key?: string }, `${s.rulings.length}`, () => (last ? [rulingText(last.ruling), ' ', citation(last.rule) ?? ''] : []));
    card.classList.toggle('has-pending', !!p);
    card.classList.toggle('finished', s.result !== '*');
    // The next penalty of the ladder changes with every offence recorded: count again.
    const offences = s.rulings.length;
    if (!offPreview.hasChildNodes() || offences !== previewedAt) {
      previewedAt = offences;
      void preview();
    }
    renderClocks(performance.now());
  }

  let raf = 0;
  const tick = () => {
    renderClocks(performance.now());
    raf = requestAnimationFrame(tick);
  };
  raf = requestAnimationFrame(tick);
  conn.start();
  return () => {
    cancelAnimationFrame(raf);
    conn.stop();
    cg.destroy();
  };
}

export function mountDirector(root: HTMLElement, id: string | null, token: string | null): () => void {
  if (id && token) rememberDirectorGame(id, token);
  const list = h('div', { class: 'dlist' });
  const games = directorGames();
  root.replaceChildren(
    h('header', { class: 'top' }, h('a', { href: '/', class: 'brand' }, 'flagfall'), h('span', { class: 'game-title' }, 'Director console')),
    h('main', { class: 'director' }, list),
  );
  const ids = Object.keys(games);
  if (ids.length === 0) list.append(h('p', {}, 'No game yet: open a director link, or create a game in the lobby.'));
  const stops: (() => void)[] = [];
  // The game of the link first, then the others this browser directs.
  ids.sort((a, b) => (a === id ? -1 : b === id ? 1 : 0));
  for (const gid of ids) {
    void fetch(`/api/games/${encodeURIComponent(gid)}`).then((r) => {
      if (r.status === 404) {
        forgetDirectorGame(gid);
        list.querySelector(`[data-game="${CSS.escape(gid)}"]`)?.remove();
      }
    });
    stops.push(mountCard(list, gid, games[gid]));
  }
  return () => stops.forEach((s) => s());
}
