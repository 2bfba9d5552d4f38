// The evening's live socket (`/ws/events/{id}`, read only, no token): reconnects by itself
// with a capped exponential backoff and jitter; the server's first message on every
// connection is a fresh `state`, so nothing is lost across a reconnect.
import { parseLive, type LiveMessage } from './projmodel';

export interface LiveHandlers {
  message(msg: LiveMessage): void;
  online(online: boolean): void;
}

export function connectLive(id: string, on: LiveHandlers): () => void {
  let ws: WebSocket | null = null;
  let attempt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws/events/${encodeURIComponent(id)}`;

  const open = (): void => {
    if (stopped) return;
    ws = new WebSocket(url);
    ws.onopen = () => {
      attempt = 0;
      on.online(true);
    };
    ws.onmessage = (e) => {
      const msg = typeof e.data === 'string' ? parseLive(e.data) : null;
      if (msg) on.message(msg);
    };
    ws.onclose = () => {
      on.online(false);
      if (stopped) return;
      const cap = Math.min(15_000, 500 * 2 ** attempt);
      attempt += 1;
      timer = setTimeout(open, cap / 2 + Math.random() * (cap / 2));
    };
  };
  open();
  return () => {
    stopped = true;
    clearTimeout(timer);
    ws?.close();
  };
}
