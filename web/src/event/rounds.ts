// The director's rounds (issue 31, items 2 and 4): every round's boards and results, not
// only the latest; a correction of an earlier round said before it is confirmed (the
// server's dry run: which round is paired again, which boards change) and after it (a
// notice kept until dismissed, in this browser across reloads); the latest round unpaired
// or paired by hand, each with a confirmation; the players who played the round before
// and are not paired named, and brought back into the round. The server decides every
// part of it; this page shows what it answers.
import { h, type VNode } from 'snabbdom';
import type { ByeKindName, EveningSummary, LiveMessage, OverrideAnswer, ResultPreview, ResultsAnswer, RoundView, ChangeAnswer } from '../wire';
import { eventApi, resultText } from './common';
import { consoleMatchText, entryOptionText } from './mine';
import type { ConsoleAction, ConsoleModel } from './model';
import { boardList, leftWhy, previewSentences, repairNoticeText, type RepairNotice } from './roundsmodel';
import './rounds.css';

const RESULTS = ['1-0', '1/2', '0-1', '+-', '-+', '--'];
const BYE_KINDS: ByeKindName[] = ['absent', 'pab', 'half', 'zero', 'full'];
const BYE_WORDS: Record<ByeKindName, string> = { absent: 'absent (0)', pab: 'pairing bye', half: 'half-point bye', zero: 'zero-point bye', full: 'full-point bye' };

/** What the panel needs of the console (console.ts's controller). */
export interface ConsoleHost {
  readonly id: string;
  readonly token: string;
  readonly model: ConsoleModel;
  dispatch(a: ConsoleAction): void;
  act<T>(tail: string, method: string, body?: unknown, done?: (answer: T) => void): Promise<void>;
}

/** A correction waiting for its confirmation, with the server's preview of it. */
interface Pending {
  round: number;
  board: number;
  results: string[];
  preview: ResultPreview;
}

/** The director's own pairing being written: boards (White, Black) and the others' byes. */
interface Manual {
  round: number;
  boards: [number, number][];
  byes: Record<number, ByeKindName>;
  confirming: boolean;
}

export class RoundsPanel {
  /** The round shown; null follows the latest. */
  viewing: number | null = null;
  /** Earlier rounds as the server last answered them, by number. */
  rounds: Record<number, RoundView> = {};
  pending: Pending | null = null;
  notice: RepairNotice | null;
  unpairing = false;
  manual: Manual | null = null;
  /** Players chosen to bring back into the latest round; `confirming` once asked. */
  bringBack: { players: number[]; confirming: boolean } | null = null;

  constructor(readonly host: ConsoleHost) {
    this.notice = this.loadNotice();
  }

  private get key(): string {
    return `flagfall-repair-notice-${this.host.id}`;
  }

  private loadNotice(): RepairNotice | null {
    try {
      const v = localStorage.getItem(this.key);
      return v ? (JSON.parse(v) as RepairNotice) : null;
    } catch {
      return null;
    }
  }

  private saveNotice(): void {
    try {
      if (this.notice) localStorage.setItem(this.key, JSON.stringify(this.notice));
      else localStorage.removeItem(this.key);
    } catch {
      /* a browser that keeps nothing: the notice lasts this page */
    }
  }

  /** Draw again (the console draws from its model; a dispatch that changes nothing asks a frame). */
  redraw(): void {
    this.host.dispatch({ type: 'busy', on: this.host.model.busy });
  }

  get event(): EveningSummary | null {
    return this.host.model.event;
  }

  get latest(): number {
    return this.event?.rounds_paired ?? 0;
  }

  showsPast(): boolean {
    return this.viewing !== null && this.viewing < this.latest;
  }

  /** A change of the evening: the round shown is read again (a correction changes an earlier round; the socket brings only the latest). */
  onLive(msg: LiveMessage): void {
    if (msg.type !== 'change') return;
    if (this.showsPast()) void this.load(this.viewing as number);
    // A preview made before the change may no longer hold: asked again on confirming.
    if (this.manual && msg.effects.some((e) => ['round-paired', 'round-deleted', 'repaired', 'pairing-replaced'].includes(e.effect))) this.manual = null;
  }

  async load(r: number): Promise<void> {
    try {
      this.rounds[r] = await eventApi<RoundView>(this.host.id, `/rounds/${r}`, this.host.token);
      this.redraw();
    } catch (e) {
      this.host.dispatch({ type: 'error', error: `Could not read round ${r}: ${(e as Error).message}` });
    }
  }

  show(r: number): void {
    this.viewing = r >= this.latest ? null : r;
    this.pending = null;
    if (this.viewing !== null) void this.load(r);
    this.redraw();
  }

  /** A correction of an earlier round: the server's dry run first, shown for confirmation. */
  async preview(round: number, board: number, results: string[]): Promise<void> {
    const body = results.length === 1 ? { result: results[0] } : { results };
    await this.host.act<ResultPreview>(`/rounds/${round}/boards/${board}/result?dry_run=1`, 'POST', body, (preview) => {
      this.pending = { round, board, results, preview };
    });
    this.redraw();
  }

  async confirm(): Promise<void> {
    const p = this.pending;
    if (!p) return;
    const body = p.results.length === 1 ? { result: p.results[0] } : { results: p.results };
    await this.host.act<ResultsAnswer>(`/rounds/${p.round}/boards/${p.board}/result`, 'POST', body, (answer) => {
      this.pending = null;
      const cause = `round ${p.round}, board ${p.board} (${p.results.map(resultText).join(', ')})`;
      for (const e of answer.effects) {
        if (e.effect !== 'repaired' || e.round === undefined) continue;
        // The boards the preview named, if the change did what it said (it re-paired that round).
        const said = p.preview.repaired.find((r) => r.round === e.round);
        this.notice = { round: e.round, boards: said?.boards ?? [], byes: said?.byes ?? false, cause };
        this.saveNotice();
      }
      const kept = answer.effects.find((e) => e.effect === 'pairing-kept');
      if (kept && !p.preview.kept.length) this.host.dispatch({ type: 'notice', notice: { text: `Round ${kept.round} keeps its pairing: ${String(kept.reason)}.` } });
      this.rounds[p.round] = answer.round;
    });
    this.redraw();
  }

  dismiss(): void {
    this.notice = null;
    this.saveNotice();
    this.redraw();
  }

  async unpair(): Promise<void> {
    const r = this.latest;
    await this.host.act<ChangeAnswer>(`/rounds/${r}`, 'DELETE', undefined, (a) => {
      this.unpairing = false;
      // True until the round is paired again.
      this.host.dispatch({ type: 'notice', notice: { text: `Round ${r}'s pairing is deleted: the players' phones and the projector show no round ${r} until you pair it again. Slips printed for it are void.`, until: ['round-paired'], after: a.seq } });
    });
    this.redraw();
  }

  startManual(r: RoundView): void {
    const byes: Record<number, ByeKindName> = {};
    for (const b of r.bye ?? []) byes[b.number] = b.kind;
    this.manual = { round: r.round, boards: r.boards.map((b) => [b.white.number, b.black.number]), byes, confirming: false };
    this.unpairing = false;
    this.redraw();
  }

  /** Players on no board of the pairing being written, in number order. */
  unseated(m: Manual): number[] {
    const seated = new Set(m.boards.flat().filter((n) => n > 0));
    return (this.event?.players ?? []).map((p) => p.number).filter((n) => !seated.has(n));
  }

  async saveManual(): Promise<void> {
    const m = this.manual;
    if (!m) return;
    const boards = m.boards.filter(([w, b]) => w > 0 || b > 0);
    const half = boards.find(([w, b]) => !(w > 0 && b > 0));
    if (half) {
      this.host.dispatch({ type: 'error', error: `Board ${boards.indexOf(half) + 1} needs two players (or remove it).` });
      m.confirming = false;
      return;
    }
    const byes = this.unseated(m).map((n) => [n, m.byes[n] ?? 'absent']);
    await this.host.act<OverrideAnswer>(`/rounds/${m.round}`, 'PUT', { boards, byes }, (answer) => {
      this.manual = null;
      const warnings = answer.warnings.map((w) => w.text);
      this.host.dispatch({
        type: 'notice',
        // True until the round is deleted or another is paired.
        notice: { text: `Round ${m.round} is paired as you set it${warnings.length ? `, against the rules of the system: ${warnings.join('; ')}` : ''}. It is not paired again after corrections. Print its pairings and slips again.`, until: ['round-deleted', 'round-paired'] },
      });
    });
    if (this.manual) this.manual.confirming = false;
    this.redraw();
  }

  async bringBackNow(): Promise<void> {
    const b = this.bringBack;
    if (!b) return;
    const r = this.latest;
    await this.host.act<ChangeAnswer>(`/rounds/${r}/pair-again`, 'POST', { players: b.players }, (a) => {
      this.bringBack = null;
      const names = b.players.map((n) => this.event?.players.find((p) => p.number === n)?.name ?? `player ${n}`);
      this.host.dispatch({ type: 'notice', notice: { text: `${names.join(' and ')} ${names.length === 1 ? 'is' : 'are'} back, and round ${r} is paired again with ${names.length === 1 ? 'them' : 'them all'}. Print round ${r}'s pairings and slips again.`, until: ['round-deleted', 'round-paired', 'pairing-replaced'], after: a.seq } });
    });
    if (this.bringBack) this.bringBack.confirming = false;
    this.redraw();
  }
}

const printLink = (p: RoundsPanel, kind: 'pairings' | 'slips', round: number, label: string): VNode =>
  h('a.print', { attrs: { href: `/events/${encodeURIComponent(p.host.id)}/print/${kind}?round=${round}`, target: '_blank' } }, label);

/** The notice a re-pairing leaves: it stays until the director dismisses it. */
export function repairNoticeV(p: RoundsPanel): VNode | null {
  const n = p.notice;
  if (!n) return null;
  return h('section.repair-notice', { attrs: { role: 'status', 'aria-labelledby': 'repair-title' } }, [
    h('h2#repair-title', `Round ${n.round} was paired again`),
    h('p', repairNoticeText(n)),
    h('p.buttons', [printLink(p, 'pairings', n.round, `Print round ${n.round}'s pairings`), printLink(p, 'slips', n.round, `Print round ${n.round}'s slips`), h('button.dismiss', { attrs: { type: 'button' }, on: { click: () => p.dismiss() } }, 'Done: dismiss this notice')]),
  ]);
}

/** One button a round, once there is more than one. */
export function roundPickerV(p: RoundsPanel): VNode | null {
  const n = p.latest;
  if (n < 2) return null;
  const shown = p.viewing ?? n;
  return h('nav.round-picker', { attrs: { 'aria-label': 'rounds' } }, [
    h('span.label', 'Round:'),
    ...Array.from({ length: n }, (_, i) => i + 1).map((r) =>
      h('button.pick-round', { class: { on: r === shown }, attrs: { type: 'button', 'data-round': r, 'aria-pressed': r === shown ? 'true' : 'false', 'aria-label': `Show round ${r}` }, on: { click: () => p.show(r) } }, r === n ? `${r} (latest)` : String(r)),
    ),
  ]);
}

function correctionV(p: RoundsPanel, r: RoundView, b: RoundView['boards'][number]): VNode {
  const sel = `past-${r.round}-${b.board}`;
  return h(
    'form.result-entry',
    {
      on: {
        submit: (ev: Event) => {
          ev.preventDefault();
          const chosen = Array.from((ev.target as HTMLFormElement).querySelectorAll('select')).map((s) => s.value);
          if (chosen.some((c) => !c)) {
            p.host.dispatch({ type: 'error', error: `Choose the result of round ${r.round}, board ${b.board} first.` });
            return;
          }
          void p.preview(r.round, b.board, chosen);
        },
      },
    },
    [
      ...b.results.map((res, g) =>
        h(`select#${sel}-${g}`, { attrs: { 'aria-label': `result of round ${r.round} board ${b.board}${b.results.length > 1 ? ` game ${g + 1}` : ''}` } }, [
          h('option', { attrs: { value: '' }, props: { selected: res === null } }, 'result…'),
          ...RESULTS.map((x) => h('option', { attrs: { value: x }, props: { selected: x === res } }, b.results.length > 1 ? entryOptionText(x, b, g, resultText(x)) : resultText(x))),
        ]),
      ),
      h('button.correct', { attrs: { type: 'submit', disabled: p.host.model.busy } }, 'Correct…'),
    ],
  );
}

/** The confirmation of a correction: what the server says it will do. */
function pendingV(p: RoundsPanel): VNode | null {
  const c = p.pending;
  if (!c) return null;
  const changes = c.preview.repaired.length > 0;
  return h('div.confirm-correction', { class: { warn: changes }, attrs: { role: 'alertdialog', 'aria-labelledby': 'confirm-title' } }, [
    h('h3#confirm-title', `Correct round ${c.round}, board ${c.board} to ${c.results.map(resultText).join(', ')}?`),
    ...previewSentences(c.preview).map((t) => h('p.consequence', t)),
    ...c.preview.repaired.map((r) =>
      h('table.new-pairing', { attrs: { 'aria-label': `round ${r.round} as it would be paired` } }, [
        h('caption', `Round ${r.round} as it would be paired (changed boards marked)`),
        h(
          'tbody',
          r.after.boards.map((b) =>
            h('tr', { class: { changed: r.boards.includes(b.board) }, attrs: { 'data-board': b.board } }, [
              h('td.bno', String(b.board)),
              h('td', `${b.white.name} (${b.white.number})`),
              h('td', `${b.black.name} (${b.black.number})`),
              h('td.mark', r.boards.includes(b.board) ? 'changes' : ''),
            ]),
          ),
        ),
      ]),
    ),
    h('p.buttons', [
      h('button.primary.confirm', { attrs: { type: 'button', disabled: p.host.model.busy }, on: { click: () => void p.confirm() } }, changes ? `Correct it and pair round ${c.preview.repaired.map((r) => r.round).join(', ')} again` : 'Correct it'),
      h('button.cancel', { attrs: { type: 'button' }, on: { click: () => ((p.pending = null), p.redraw()) } }, 'Cancel'),
    ]),
  ]);
}

/** An earlier round: its boards, results and corrections. */
export function pastRoundV(p: RoundsPanel): VNode {
  const n = p.viewing as number;
  const r = p.rounds[n];
  if (!r) return h('section.round.past', [h('h2#round-title', `Round ${n}`), h('p.muted', 'Reading the round…')]);
  return h('section.round.past', { attrs: { 'aria-labelledby': 'round-title', 'data-round': n } }, [
    h('h2#round-title', `Round ${r.round}${r.complete ? ' (complete)' : ''}`),
    h('p.muted', `An earlier round (round ${p.latest} is the latest). A correction here is shown with what it does to the rounds after it before you confirm it.`),
    r.manual_by ? h('p.muted', `Paired by hand by ${r.manual_by}.`) : null,
    h('table.pairings', [
      h('thead', h('tr', [h('th', 'Board'), h('th', 'White'), h('th', 'Black'), h('th', 'Result'), h('th', 'Correct')])),
      h(
        'tbody',
        r.boards.map((b) =>
          h('tr', { attrs: { 'data-board': b.board } }, [
            h('td.bno', String(b.board)),
            h('td', `${b.white.name} (${b.white.number})`),
            h('td', `${b.black.name} (${b.black.number})`),
            h('td.result', b.results.length > 1 ? consoleMatchText(b) : b.results.map(resultText).join(' · ')),
            h('td', correctionV(p, r, b)),
          ]),
        ),
      ),
    ]),
    r.bye?.length ? h('p.byes', `Byes: ${r.bye.map((b) => `${b.name} (${b.kind})`).join(', ')}`) : null,
    pendingV(p),
  ]);
}

function leftV(p: RoundsPanel, r: RoundView): VNode | null {
  const left = r.left ?? [];
  if (!left.length) return null;
  const played = !!r.boards.some((b) => b.results.some((x) => x !== null));
  const chosen = p.bringBack?.players ?? left.filter((l) => l.why !== 'withdrawn').map((l) => l.number);
  const names = (ns: number[]) => left.filter((l) => ns.includes(l.number)).map((l) => l.name);
  return h('div.left-out', { attrs: { role: 'note', 'aria-labelledby': 'left-title' } }, [
    h('h3#left-title', `Played round ${r.round - 1}, not paired in round ${r.round}`),
    h(
      'ul',
      left.map((l) =>
        h('li', { attrs: { 'data-player': l.number } }, [
          h('label', [
            h('input.bring', {
              attrs: { type: 'checkbox', disabled: played, 'aria-label': `bring back ${l.name}` },
              props: { checked: chosen.includes(l.number) },
              on: {
                change: (ev: Event) => {
                  const on = (ev.target as HTMLInputElement).checked;
                  const now = new Set(chosen);
                  if (on) now.add(l.number);
                  else now.delete(l.number);
                  p.bringBack = { players: [...now], confirming: false };
                  p.redraw();
                },
              },
            }),
            ` ${l.name} (${l.number}): ${leftWhy(l)}`,
          ]),
        ]),
      ),
    ),
    played
      ? h('p.muted', `Round ${r.round} has begun: it is no longer paired again. Check them in (Players, below) to pair them from round ${r.round + 1}.`)
      : p.bringBack?.confirming
        ? h('div.confirm-bring', { attrs: { role: 'alertdialog' } }, [
            h('p', `Bring back ${names(chosen).join(' and ')} (checked in, resumed or reinstated as each needs) and pair round ${r.round} again? Its boards may all change: print its pairings and slips again.`),
            h('p.buttons', [
              h('button.primary.confirm-bring-back', { attrs: { type: 'button', disabled: p.host.model.busy }, on: { click: () => void p.bringBackNow() } }, `Bring back and pair round ${r.round} again`),
              h('button.cancel', { attrs: { type: 'button' }, on: { click: () => ((p.bringBack = null), p.redraw()) } }, 'Cancel'),
            ]),
          ])
        : h(
            'button.bring-back',
            {
              attrs: { type: 'button', disabled: !chosen.length || p.host.model.busy },
              on: {
                click: () => {
                  p.bringBack = { players: chosen, confirming: true };
                  p.redraw();
                },
              },
            },
            `Bring back the ones ticked and pair round ${r.round} again…`,
          ),
  ]);
}

function manualV(p: RoundsPanel, m: Manual): VNode {
  const players = p.event?.players ?? [];
  const pick = (i: number, side: 0 | 1) =>
    h(
      `select.manual-${side === 0 ? 'white' : 'black'}`,
      {
        attrs: { 'aria-label': `board ${i + 1} ${side === 0 ? 'White' : 'Black'}` },
        on: {
          change: (ev: Event) => {
            m.boards[i][side] = Number((ev.target as HTMLSelectElement).value);
            m.confirming = false;
            p.redraw();
          },
        },
      },
      [h('option', { attrs: { value: '0' }, props: { selected: m.boards[i][side] === 0 } }, '—'), ...players.map((pl) => h('option', { attrs: { value: pl.number }, props: { selected: m.boards[i][side] === pl.number } }, `${pl.number}. ${pl.name}`))],
    );
  const twice = new Set(m.boards.flat().filter((n, i, all) => n > 0 && all.indexOf(n) !== i));
  const unseated = p.unseated(m);
  return h('div.manual', { attrs: { role: 'group', 'aria-labelledby': 'manual-title' } }, [
    h('h3#manual-title', `Pair round ${m.round} by hand`),
    h('p.muted', 'Choose each board’s players; whoever has no board gets the bye you choose. The server warns of every rule of the system it breaks, and the round is not paired again after corrections.'),
    h(
      'ol.manual-boards',
      m.boards.map((_b, i) =>
        h('li', { attrs: { 'data-board': i + 1 } }, [
          h('span.bno', `Board ${i + 1}`),
          pick(i, 0),
          h('span.v', '–'),
          pick(i, 1),
          h('button.remove-board', { attrs: { type: 'button', 'aria-label': `remove board ${i + 1}` }, on: { click: () => (m.boards.splice(i, 1), (m.confirming = false), p.redraw()) } }, 'Remove'),
        ]),
      ),
    ),
    h('button.add-board', { attrs: { type: 'button' }, on: { click: () => (m.boards.push([0, 0]), p.redraw()) } }, 'Add a board'),
    twice.size ? h('p.error', `On two boards: ${[...twice].map((n) => players.find((x) => x.number === n)?.name ?? n).join(', ')}.`) : null,
    unseated.length
      ? h('div.manual-byes', [
          h('p', 'Without a board:'),
          h(
            'ul',
            unseated.map((n) =>
              h('li', [
                h('label', [
                  `${players.find((x) => x.number === n)?.name ?? n} (${n}) `,
                  h(
                    'select.bye-kind',
                    { attrs: { 'aria-label': `bye of ${players.find((x) => x.number === n)?.name ?? n}` }, on: { change: (ev: Event) => ((m.byes[n] = (ev.target as HTMLSelectElement).value as ByeKindName), p.redraw()) } },
                    BYE_KINDS.map((k) => h('option', { attrs: { value: k }, props: { selected: (m.byes[n] ?? 'absent') === k } }, BYE_WORDS[k])),
                  ),
                ]),
              ]),
            ),
          ),
        ])
      : null,
    m.confirming
      ? h('div.confirm-manual', { attrs: { role: 'alertdialog' } }, [
          h('p', `Replace round ${m.round}'s pairing with this one (${m.boards.length} boards)? The players' phones and the projector show it at once; printed slips must be printed again.`),
          h('p.buttons', [
            h('button.primary.confirm-manual-save', { attrs: { type: 'button', disabled: p.host.model.busy }, on: { click: () => void p.saveManual() } }, `Pair round ${m.round} this way`),
            h('button.cancel', { attrs: { type: 'button' }, on: { click: () => ((m.confirming = false), p.redraw()) } }, 'Not yet'),
          ]),
        ])
      : h('p.buttons', [
          h('button.primary.save-manual', { attrs: { type: 'button', disabled: twice.size > 0 }, on: { click: () => ((m.confirming = true), p.redraw()) } }, 'Use this pairing…'),
          h('button.cancel', { attrs: { type: 'button' }, on: { click: () => ((p.manual = null), p.redraw()) } }, 'Cancel'),
        ]),
  ]);
}

/** Below the latest round: who left it, unpairing it, pairing it by hand. */
export function latestToolsV(p: RoundsPanel): VNode | null {
  if (p.showsPast()) return null;
  const r = p.host.model.round;
  if (!r || r.round !== p.latest) return null;
  const played = r.boards.some((b) => b.results.some((x) => x !== null));
  return h('section.round-tools', { attrs: { 'aria-labelledby': 'round-tools-title' } }, [
    h('h2#round-tools-title', `Round ${r.round}'s pairing`),
    leftV(p, r),
    played
      ? h('p.muted', `Round ${r.round} has results: it can no longer be unpaired or paired by hand (correct its results instead).`)
      : p.manual
        ? manualV(p, p.manual)
        : p.unpairing
          ? h('div.confirm-unpair', { attrs: { role: 'alertdialog' } }, [
              h('p', `Delete round ${r.round}'s pairing? Nothing in it is played. The players' phones and the projector show no round ${r.round} until you pair it again; slips printed for it are void.`),
              h('p.buttons', [
                h('button.danger.confirm-unpair-now', { attrs: { type: 'button', disabled: p.host.model.busy }, on: { click: () => void p.unpair() } }, `Delete round ${r.round}'s pairing`),
                h('button.cancel', { attrs: { type: 'button' }, on: { click: () => ((p.unpairing = false), p.redraw()) } }, 'Keep it'),
              ]),
            ])
          : h('p.buttons', [
              h('button.unpair', { attrs: { type: 'button', disabled: p.host.model.busy }, on: { click: () => ((p.unpairing = true), p.redraw()) } }, `Unpair round ${r.round}…`),
              h('button.pair-by-hand', { attrs: { type: 'button', disabled: p.host.model.busy }, on: { click: () => p.startManual(r) } }, `Pair round ${r.round} by hand…`),
            ]),
  ]);
}
