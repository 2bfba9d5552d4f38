// The evening's pages' models and their reducers: pure (no DOM), so the console and the
// player's page change their state in one place each, and the unit tests read them.
import type { Dispute, GameState, EveningPlayer, EveningSummary, LiveMessage, LogEntryView, Me, RoundView, Standings } from '../wire';
import type { LiveStatus } from './live';
import { refusalLifted } from './notices';

/** The director's console of an evening. */
export interface ConsoleModel {
  event: EveningSummary | null;
  round: RoundView | null;
  standings: Standings | null;
  disputes: Dispute[];
  /** Each disputed game as `GET /api/games/{id}` answers it (its moves, clocks and rulings), by id. */
  records: Record<string, GameState>;
  log: LogEntryView[] | null;
  live: LiveStatus;
  /** The last refusal or failure, in the server's words. */
  error: string | null;
  /** What the refusal is about (notices.ts): it is taken down when a change lifts it. */
  errorAbout?: string | null;
  /** What was just done (a new player's link, a deputy's link, the links of the players a file brought). */
  notice: {
    text: string;
    link?: string;
    links?: { name: string; link: string }[];
    /** Taken down by a later change (its log past `after`) with one of these effects: it no longer holds then. */
    until?: string[];
    after?: number;
  } | null;
  busy: boolean;
}

export type ConsoleAction =
  | { type: 'live'; msg: LiveMessage }
  | { type: 'event'; event: EveningSummary }
  | { type: 'round'; round: RoundView | null }
  | { type: 'status'; live: LiveStatus }
  | { type: 'record'; game: string; record: GameState }
  | { type: 'log'; log: LogEntryView[] | null }
  | { type: 'error'; error: string | null; about?: string }
  | { type: 'notice'; notice: ConsoleModel['notice'] }
  | { type: 'busy'; on: boolean };

export function initialConsole(): ConsoleModel {
  return { event: null, round: null, standings: null, disputes: [], records: {}, log: null, live: 'connecting', error: null, notice: null, busy: false };
}

function withPlayers(e: EveningSummary | null, players: EveningPlayer[] | undefined): EveningSummary | null {
  return e && players ? { ...e, players } : e;
}

/** Records of games no longer disputed are dropped. */
function keepRecords(records: Record<string, GameState>, disputes: Dispute[]): Record<string, GameState> {
  const out: Record<string, GameState> = {};
  for (const d of disputes) if (records[d.game]) out[d.game] = records[d.game];
  return out;
}

export function reduceConsole(m: ConsoleModel, a: ConsoleAction): ConsoleModel {
  switch (a.type) {
    case 'live': {
      const msg = a.msg;
      if (msg.type === 'state') {
        const disputes = msg.event.disputes ?? [];
        return { ...m, event: msg.event, round: msg.round, standings: msg.standings, disputes, records: keepRecords(m.records, disputes) };
      }
      if (msg.type === 'dispute') return { ...m, disputes: msg.disputes, records: keepRecords(m.records, msg.disputes) };
      const disputes = msg.disputes ?? m.disputes;
      const lifted = m.error !== null && m.errorAbout !== undefined && refusalLifted(m.errorAbout, msg.effects);
      const until = m.notice?.until;
      const stale = !!until && msg.seq > (m.notice?.after ?? 0) && msg.effects.some((e) => until.includes(e.effect));
      return {
        ...m,
        ...(lifted ? { error: null, errorAbout: null } : {}),
        ...(stale ? { notice: null } : {}),
        event: withPlayers(m.event, msg.players),
        round: msg.round !== undefined ? msg.round : m.round,
        standings: msg.standings !== undefined ? msg.standings : m.standings,
        disputes,
        records: keepRecords(m.records, disputes),
      };
    }
    case 'event':
      return { ...m, event: a.event, disputes: a.event.disputes ?? m.disputes };
    case 'round':
      return { ...m, round: a.round };
    case 'status':
      return { ...m, live: a.live };
    case 'record':
      return m.disputes.some((d) => d.game === a.game) ? { ...m, records: { ...m.records, [a.game]: a.record } } : m;
    case 'log':
      return { ...m, log: a.log };
    case 'error':
      return { ...m, error: a.error, errorAbout: a.about, notice: a.error ? null : m.notice, busy: false };
    case 'notice':
      return { ...m, notice: a.notice, error: null };
    case 'busy':
      return { ...m, busy: a.on };
  }
}

/** The player's page. */
export interface PlayerModel {
  me: Me | null;
  event: EveningSummary | null;
  round: RoundView | null;
  live: LiveStatus;
  error: string | null;
  /** What the refusal is about (notices.ts): it is taken down when a change lifts it. */
  errorAbout?: string | null;
  notice: string | null;
  /** Whether the notice still holds of the player's view: it is taken down when it does not. */
  noticeHolds?: (me: Me) => boolean;
  /** The results chosen in the report form, one per game of the board. */
  report: string[];
  busy: boolean;
}

export type PlayerAction =
  | { type: 'me'; me: Me }
  | { type: 'event'; event: EveningSummary }
  | { type: 'round'; round: RoundView | null }
  | { type: 'status'; live: LiveStatus }
  | { type: 'report'; game: number; result: string }
  | { type: 'error'; error: string | null; about?: string }
  | { type: 'lift'; effects: { effect: string; round?: number; [k: string]: unknown }[] }
  | { type: 'notice'; notice: string | null; holds?: (me: Me) => boolean }
  | { type: 'busy'; on: boolean };

export function initialPlayer(): PlayerModel {
  return { me: null, event: null, round: null, live: 'connecting', error: null, notice: null, report: [], busy: false };
}

export function reducePlayer(m: PlayerModel, a: PlayerAction): PlayerModel {
  switch (a.type) {
    case 'me': {
      // A new board (or a new round) starts a fresh report form.
      const fresh = a.me.round !== m.me?.round || a.me.board !== m.me?.board;
      const stale = m.notice !== null && !!m.noticeHolds && !m.noticeHolds(a.me);
      return { ...m, me: a.me, report: fresh ? (a.me.results ?? []).map(() => '') : m.report, ...(stale ? { notice: null, noticeHolds: undefined } : {}) };
    }
    case 'event':
      return { ...m, event: a.event };
    case 'round':
      return { ...m, round: a.round };
    case 'status':
      return { ...m, live: a.live };
    case 'report': {
      const report = [...m.report];
      report[a.game] = a.result;
      return { ...m, report };
    }
    case 'error':
      return { ...m, error: a.error, errorAbout: a.about, notice: a.error ? null : m.notice, busy: false };
    case 'lift':
      return m.error !== null && m.errorAbout !== undefined && refusalLifted(m.errorAbout, a.effects) ? { ...m, error: null, errorAbout: null } : m;
    case 'notice':
      return { ...m, notice: a.notice, noticeHolds: a.holds, error: null, busy: false };
    case 'busy':
      return { ...m, busy: a.on };
  }
}

/** The player's own board in `round` (with what each side reported), if any. */
export function myBoard(m: PlayerModel): RoundView['boards'][number] | null {
  const me = m.me;
  if (!me?.board || !m.round || m.round.round !== me.round) return null;
  return m.round.boards.find((b) => b.board === me.board) ?? null;
}
