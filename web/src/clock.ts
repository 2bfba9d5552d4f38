// Clock display. The server is the authority on time; the page only counts down between
// its messages so the running clock moves smoothly.
import type { ClockState, Color } from './protocol';

/**
 * Formats remaining time as a chess clock shows it: `h:mm:ss` from an hour, `m:ss` from
 * ten seconds, `s.t` (tenths) under ten seconds. Below zero (a flag is down; in OTB mode
 * the clock keeps counting, as the rulesets say) the same with a leading minus sign.
 * Positive times are rounded down (a clock never shows more time than is left), negative
 * times away from zero, so "0.0" is shown only while the flag is still up.
 */
export function formatClock(ms: number): string {
  if (!Number.isFinite(ms)) return '--:--';
  const negative = ms < 0;
  const abs = Math.abs(ms);
  const sign = negative ? '-' : '';
  if (abs < 10_000) {
    const tenths = negative ? Math.ceil(abs / 100) : Math.floor(abs / 100);
    if (tenths >= 100) return sign + '0:10';
    return `${sign}${Math.floor(tenths / 10)}.${tenths % 10}`;
  }
  const secs = negative ? Math.ceil(abs / 1000) : Math.floor(abs / 1000);
  const h = Math.floor(secs / 3600);
  const m = Math.floor((secs % 3600) / 60);
  const s = secs % 60;
  const ss = String(s).padStart(2, '0');
  if (h > 0) return `${sign}${h}:${String(m).padStart(2, '0')}:${ss}`;
  return `${sign}${m}:${ss}`;
}

/** Words for a screen reader: "4 minutes 5 seconds", "8.3 seconds", "flag down, 2 seconds over". */
export function spokenClock(ms: number): string {
  if (!Number.isFinite(ms)) return 'unknown';
  if (ms <= 0) {
    const over = Math.ceil(-ms / 1000);
    return over === 0 ? 'flag down' : `flag down, ${over} second${over === 1 ? '' : 's'} over`;
  }
  if (ms < 10_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)} seconds`;
  const secs = Math.floor(ms / 1000);
  const m = Math.floor(secs / 60);
  const s = secs % 60;
  const parts: string[] = [];
  if (m > 0) parts.push(`${m} minute${m === 1 ? '' : 's'}`);
  if (s > 0 || m === 0) parts.push(`${s} second${s === 1 ? '' : 's'}`);
  return parts.join(' ');
}

/**
 * The clock as last reported by the server, plus the local instant it arrived, so the
 * running side can be counted down until the next report.
 */
export class LiveClock {
  private base: ClockState = { white_ms: 0, black_ms: 0, running: null };
  private receivedAt = 0;
  /** Whether the running clock may go below zero (OTB: yes; an auto-flag game stops at 0). */
  countsBelowZero = true;

  /** Takes a server report received at local time `now` (ms, monotonic). */
  update(clock: ClockState, now: number): void {
    this.base = { ...clock };
    this.receivedAt = now;
  }

  get running(): Color | null {
    return this.base.running;
  }

  /** Remaining time of `color` at local time `now`. */
  remaining(color: Color, now: number): number {
    const b = color === 'white' ? this.base.white_ms : this.base.black_ms;
    if (this.base.running !== color) return b;
    const left = b - Math.max(0, now - this.receivedAt);
    return this.countsBelowZero ? left : Math.max(0, left);
  }

  /** Whether `color`'s flag is down at `now` by the page's count (the server's `flags` decide claims). */
  flagDown(color: Color, now: number): boolean {
    return this.remaining(color, now) <= 0;
  }
}

/** Game time since the clock started (a ruling's `at`), as `m:ss`. */
export function elapsed(ms: number): string {
  const secs = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, '0')}`;
}
