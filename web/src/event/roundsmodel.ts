// The words of the director's rounds panel (rounds.ts), pure for the unit tests: boards
// listed as a director reads them, who left a round and why, and the notice a re-pairing
// leaves until it is dismissed.
import type { LeftPlayer, ResultPreview } from '../wire';

/** Board numbers as a person writes them: "board 3", "boards 1 and 3", "boards 2–4", "boards 1, 3–5 and 7". */
export function boardList(boards: number[]): string {
  const sorted = [...new Set(boards)].sort((a, b) => a - b);
  if (!sorted.length) return 'no board';
  const runs: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    runs.push(j - i >= 2 ? `${sorted[i]}–${sorted[j]}` : j === i ? String(sorted[i]) : `${sorted[i]}, ${sorted[j]}`);
    i = j + 1;
  }
  const parts = runs.join(', ').split(', ');
  const text = parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
  return `${sorted.length === 1 ? 'board' : 'boards'} ${text}`;
}

/** Why a player who played the round before is not paired, in words. */
export function leftWhy(p: LeftPlayer): string {
  switch (p.why) {
    case 'not_checked_in':
      return 'checked out';
    case 'withdrawn':
      return 'withdrawn';
    case 'paused':
      return 'paused';
    case 'available':
      return 'back, not yet paired';
  }
}

/** What a previewed correction will do to the rounds after it, sentence by sentence. */
export function previewSentences(p: ResultPreview): string[] {
  const out: string[] = [];
  for (const r of p.repaired) {
    const what = r.boards.length ? `${boardList(r.boards)} change` : 'no board changes';
    out.push(`Round ${r.round} will be paired again: ${what}${r.byes ? ', and the byes change' : ''}. Its printed pairings and slips must be printed again, and players already seated must move.`);
  }
  for (const k of p.kept) out.push(`Round ${k.round} keeps its pairing: ${k.reason}.`);
  if (!out.length) out.push('No other round changes: only this result and the standings.');
  return out;
}

/** The notice a re-pairing leaves, kept until the director dismisses it. */
export interface RepairNotice {
  round: number;
  boards: number[];
  byes: boolean;
  /** The correction that caused it: "round 1, board 2 (1–0)". */
  cause: string;
}

export function repairNoticeText(n: RepairNotice): string {
  const what = n.boards.length ? `${boardList(n.boards)} changed` : 'no board changed';
  return `Round ${n.round} was paired again after the correction of ${n.cause}: ${what}${n.byes ? ', and the byes changed' : ''}. Print round ${n.round}'s pairings and slips again; the players' phones and the projector already show the new pairing.`;
}
