import { describe, expect, it } from 'vitest';
import { elapsed, formatClock, LiveClock, spokenClock } from '../src/clock';

describe('formatClock', () => {
  it('shows minutes and seconds from ten seconds up, rounded down', () => {
    expect(formatClock(300_000)).toBe('5:00');
    expect(formatClock(299_999)).toBe('4:59');
    expect(formatClock(65_400)).toBe('1:05');
    expect(formatClock(10_000)).toBe('0:10');
  });
  it('shows hours when there are any', () => {
    expect(formatClock(3_600_000)).toBe('1:00:00');
    expect(formatClock(3_725_000)).toBe('1:02:05');
  });
  it('shows tenths under ten seconds', () => {
    expect(formatClock(9_999)).toBe('9.9');
    expect(formatClock(8_340)).toBe('8.3');
    expect(formatClock(100)).toBe('0.1');
    expect(formatClock(99)).toBe('0.0');
    expect(formatClock(0)).toBe('0.0');
  });
  it('keeps counting below zero after a flag, with a minus sign', () => {
    expect(formatClock(-1)).toBe('-0.1');
    expect(formatClock(-2_340)).toBe('-2.4');
    expect(formatClock(-9_950)).toBe('-0:10');
    expect(formatClock(-12_001)).toBe('-0:13');
    expect(formatClock(-75_000)).toBe('-1:15');
  });
  it('does not print NaN', () => {
    expect(formatClock(Number.NaN)).toBe('--:--');
  });
});

describe('spokenClock', () => {
  it('reads the time in words for screen readers', () => {
    expect(spokenClock(245_000)).toBe('4 minutes 5 seconds');
    expect(spokenClock(60_000)).toBe('1 minute');
    expect(spokenClock(8_340)).toBe('8.3 seconds');
    expect(spokenClock(-2_100)).toBe('flag down, 3 seconds over');
    expect(spokenClock(0)).toBe('flag down');
  });
});

describe('LiveClock', () => {
  it('counts down only the running side from the moment the report arrived', () => {
    const c = new LiveClock();
    c.update({ white_ms: 60_000, black_ms: 30_000, running: 'white' }, 1_000);
    expect(c.remaining('white', 1_000)).toBe(60_000);
    expect(c.remaining('white', 3_500)).toBe(57_500);
    expect(c.remaining('black', 3_500)).toBe(30_000);
  });
  it('goes below zero in OTB mode and stops at zero where the game auto-flags', () => {
    const c = new LiveClock();
    c.update({ white_ms: 500, black_ms: 30_000, running: 'white' }, 0);
    expect(c.remaining('white', 2_000)).toBe(-1_500);
    expect(c.flagDown('white', 2_000)).toBe(true);
    c.countsBelowZero = false;
    expect(c.remaining('white', 2_000)).toBe(0);
  });
  it('stands still when no clock runs', () => {
    const c = new LiveClock();
    c.update({ white_ms: 5_000, black_ms: 6_000, running: null }, 0);
    expect(c.remaining('white', 10_000)).toBe(5_000);
    expect(c.running).toBeNull();
  });
});

describe('elapsed', () => {
  it('shows game time as m:ss', () => {
    expect(elapsed(0)).toBe('0:00');
    expect(elapsed(61_999)).toBe('1:01');
  });
});
