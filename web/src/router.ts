// The single-page app's routes: the server serves index.html for each of these paths.

export type Route =
  | { page: 'lobby' }
  | { page: 'play'; id: string; token: string | null }
  | { page: 'watch'; id: string }
  | { page: 'direct'; id: string | null; token: string | null }
  | { page: 'challenge'; id: string; secret: string | null }
  | { page: 'projector'; id: string }
  | { page: 'print'; id: string; kind: string }
  | { page: 'event-new' }
  | { page: 'event-direct'; id: string; token: string | null }
  | { page: 'event-player'; id: string; token: string | null }
  | { page: 'event-join'; id: string }
  | { page: 'notfound'; path: string };

export function route(pathname: string, search: string): Route {
  const params = new URLSearchParams(search);
  const token = params.get('token');
  const parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0) return { page: 'lobby' };
  const [head, id] = parts;
  if (parts.length === 2 && head === 'play') return { page: 'play', id, token };
  if (parts.length === 2 && head === 'watch') return { page: 'watch', id };
  if (parts.length === 2 && head === 'challenge') return { page: 'challenge', id, secret: params.get('secret') };
  if (parts.length === 2 && head === 'events' && id === 'new') return { page: 'event-new' };
  if (parts.length === 3 && head === 'events' && parts[2] === 'projector') return { page: 'projector', id };
  if (parts.length === 4 && head === 'events' && parts[2] === 'print') return { page: 'print', id, kind: parts[3] };
  if (head === 'direct' && parts.length <= 2) return { page: 'direct', id: id ?? null, token };
  if (parts.length === 3 && head === 'events' && parts[2] === 'direct') return { page: 'event-direct', id, token };
  if (parts.length === 3 && head === 'events' && parts[2] === 'player') return { page: 'event-player', id, token };
  if (parts.length === 3 && head === 'events' && parts[2] === 'join') return { page: 'event-join', id };
  return { page: 'notfound', path: pathname };
}
