// Sounds made by the page itself with Web Audio (no downloaded assets), with a mute switch
// remembered in localStorage.
import type { Sound } from './model';

const KEY = 'flagfall.muted';

let ctx: AudioContext | null = null;

export function isMuted(): boolean {
  try {
    return localStorage.getItem(KEY) === '1';
  } catch {
    return false;
  }
}

export function setMuted(m: boolean): void {
  try {
    localStorage.setItem(KEY, m ? '1' : '0');
  } catch {
    /* private mode: not remembered */
  }
}

function tone(freq: number, startS: number, durS: number, type: OscillatorType = 'sine', gain = 0.15): void {
  if (!ctx) return;
  const o = ctx.createOscillator();
  const g = ctx.createGain();
  o.type = type;
  o.frequency.value = freq;
  const t0 = ctx.currentTime + startS;
  g.gain.setValueAtTime(gain, t0);
  g.gain.exponentialRampToValueAtTime(0.0001, t0 + durS);
  o.connect(g).connect(ctx.destination);
  o.start(t0);
  o.stop(t0 + durS + 0.02);
}

export type SoundName = Sound | 'lowtime';

/**
 * Browsers let a page make sound only after a click or key on it: the page calls this on
 * its first gestures. Returns true when sound just became possible.
 */
export function unlockSound(): boolean {
  const was = soundBlocked();
  try {
    if (!ctx) ctx = new AudioContext();
    if (ctx.state === 'suspended') void ctx.resume();
  } catch {
    return false;
  }
  return was;
}

/** Whether the browser has not let the page make sound yet (no click or key so far). */
export function soundBlocked(): boolean {
  return !ctx || ctx.state === 'suspended';
}

export function play(s: SoundName): void {
  if (isMuted() || !ctx || ctx.state !== 'running') return;
  switch (s) {
    case 'move':
      tone(660, 0, 0.06, 'triangle');
      break;
    case 'capture':
      tone(330, 0, 0.05, 'square', 0.08);
      tone(220, 0.05, 0.09, 'triangle');
      break;
    case 'lowtime':
      tone(880, 0, 0.08, 'sine', 0.1);
      break;
    case 'flag':
      tone(988, 0, 0.15, 'square', 0.08);
      tone(740, 0.17, 0.25, 'square', 0.08);
      break;
    case 'ruling':
      tone(523, 0, 0.1);
      tone(784, 0.1, 0.15);
      break;
  }
}
