// The evening's live socket (`/ws/events/{id}`), the one client of it the pages share:
// reconnects by itself with the page's capped exponential backoff and jitter; the
// server's first message on every connection is a fresh `state`, so nothing is lost
// across a reconnect. With the director's token, the director's socket (disputes, the
// players' reports).
import { Backoff } from '../connection';
import type { LiveMessage } from '../wire';

export type LiveStatus = 'connecting' | 'online' | 'offline';

/** A message of the socket, or null for text that is not one (ignored: the next state repairs). */
export function parseLive(text: string): LiveMessage | null {
  try {
    const v = JSON.parse(text) as { type?: unknown };
    if (v && (v.type === 'state' || v.type === 'change' || v.type === 'dispute')) return v as LiveMessage;
  } catch {
    /* not JSON */
  }
  return null;
}

/** Opens the evening's live socket: every message to `onMessage`, the connection's state to `onStatus`; the answer stops it. */
export function liveEvening(id: string, onMessage: (m: LiveMessage) => void, onStatus: (s: LiveStatus) => void, token: string | null = null): () => void {
  const backoff = new Backoff();
  let ws: WebSocket | null = null;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const query = token ? `?token=${encodeURIComponent(token)}` : '';
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws/events/${encodeURIComponent(id)}${query}`;
  const open = (): void => {
    if (stopped) return;
    onStatus('connecting');
    ws = new WebSocket(url);
    ws.onopen = () => {
      backoff.reset();
      onStatus('online');
    };
    ws.onmessage = (ev) => {
      const msg = typeof ev.data === 'string' ? parseLive(ev.data) : null;
      if (msg) onMessage(msg);
    };
    ws.onclose = () => {
      if (stopped) return;
      onStatus('offline');
      timer = setTimeout(open, backoff.next());
    };
  };
  open();
  return () => {
    stopped = true;
    clearTimeout(timer);
    ws?.close();
  };
}
