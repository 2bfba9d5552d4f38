// The evenings this browser created or directed, remembered in localStorage (as lichess
// remembers a device's games): `/direct/` lists them with their consoles' links, so a
// lost link is not a lost evening. This browser only: another browser, a private window or
// cleared site data knows none of them. Nothing is sent to the server.
import { h, type VNode } from 'snabbdom';
import { directorGames } from '../ladder';
import './director.css';

const STORE = 'flagfall.evenings';

/** One remembered evening. */
export interface RememberedEvening {
  id: string;
  token: string;
  name: string;
  /** When this browser first saw it (ms since 1970). */
  at: number;
}

export function rememberedEvenings(): RememberedEvening[] {
  try {
    const v = JSON.parse(localStorage.getItem(STORE) ?? '[]');
    if (!Array.isArray(v)) return [];
    return v.filter((e): e is RememberedEvening => !!e && typeof e.id === 'string' && typeof e.token === 'string');
  } catch {
    return [];
  }
}

/** Remember (or rename) an evening and its director's token; the newest first. */
export function rememberEvening(id: string, token: string, name: string): void {
  const all = rememberedEvenings();
  const old = all.find((e) => e.id === id && e.token === token);
  if (old && old.name === name) return;
  const rest = all.filter((e) => !(e.id === id && e.token === token));
  const entry: RememberedEvening = { id, token, name: name || id, at: old?.at ?? Date.now() };
  try {
    localStorage.setItem(STORE, JSON.stringify([entry, ...rest].slice(0, 200)));
  } catch {
    /* storage refused: not remembered */
  }
}

export function forgetEvening(id: string, token: string): void {
  try {
    localStorage.setItem(STORE, JSON.stringify(rememberedEvenings().filter((e) => !(e.id === id && e.token === token))));
  } catch {
    /* storage refused */
  }
}

export const consoleLink = (e: RememberedEvening): string => `/events/${encodeURIComponent(e.id)}/direct?token=${encodeURIComponent(e.token)}`;

/** The `/direct/` page's list: the evenings and the games this browser directs. */
export function rememberedView(redraw: () => void): VNode {
  const evenings = rememberedEvenings();
  const games = Object.keys(directorGames());
  return h('section.remembered', { attrs: { 'aria-labelledby': 'remembered-title' } }, [
    h('h2#remembered-title', 'Your evenings'),
    h('p.this-browser', 'Kept in this browser only: another browser or device, a private window, or clearing this site’s data does not have them. Nothing of it is sent to the server.'),
    evenings.length
      ? h(
          'ul.evenings',
          evenings.map((e) =>
            h('li', { attrs: { 'data-evening': e.id } }, [
              h('a.console', { attrs: { href: consoleLink(e) } }, e.name),
              h('span.when', ` created ${new Date(e.at).toLocaleDateString()}`),
              h(
                'button.forget',
                {
                  attrs: { type: 'button', 'aria-label': `forget ${e.name} in this browser` },
                  on: {
                    click: () => {
                      forgetEvening(e.id, e.token);
                      redraw();
                    },
                  },
                },
                'Forget',
              ),
            ]),
          ),
        )
      : h('p.muted', 'No evening yet: an evening created in this browser (or whose console was opened here) is listed here.'),
    games.length ? h('p.games-note', `${games.length} game${games.length === 1 ? '' : 's'} directed from this browser ${games.length === 1 ? 'is' : 'are'} below.`) : null,
  ]);
}
