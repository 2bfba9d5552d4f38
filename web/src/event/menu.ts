// The director console's one menu of everything to print, show and save: the print views
// (pairings, result slips, standings, crosstable, the players' QR cards), the projector and
// the venue page, and every export (PGN, TRF, the standings CSV, the event file, the three
// US Chess files). The files are fetched with the director's token (the US Chess files and
// the event file are the director's) and saved under the name the server gives them
// (`friday-blitz.pgn`, `friday-blitz-THEXPORT.DBF`); a refusal (the US Chess report still
// needs the start date, ...) shows in the server's words. The menu stays: its links do not
// vanish after the next action.
import { h, type VNode } from 'snabbdom';
import type { ConsoleAction, ConsoleModel } from './model';
import './director.css';

/** What the menu and the console's other panels need of the console. */
export interface ConsoleHost {
  readonly id: string;
  readonly token: string;
  model: ConsoleModel;
  dispatch(a: ConsoleAction): void;
  act<T>(tail: string, method: string, body?: unknown, done?: (answer: T) => void): Promise<void>;
}

/** One file of the menu: its label, the export's kind and what it is. */
const FILES: { kind: string; label: string; what: string }[] = [
  { kind: 'pgn', label: 'PGN', what: 'the games' },
  { kind: 'trf', label: 'TRF', what: 'FIDE’s tournament report' },
  { kind: 'csv', label: 'Standings CSV', what: 'opens in Excel or any spreadsheet' },
  { kind: 'json', label: 'Event file', what: 'the whole evening, for the flagfall event command or another server' },
  { kind: 'uscf-event', label: 'US Chess THEXPORT.DBF', what: 'the event' },
  { kind: 'uscf-section', label: 'US Chess TSEXPORT.DBF', what: 'its section' },
  { kind: 'uscf-detail', label: 'US Chess TDEXPORT.DBF', what: 'each player with every round' },
];

const PRINTS: { kind: string; label: string }[] = [
  { kind: 'pairings', label: 'Pairings' },
  { kind: 'slips', label: 'Result slips' },
  { kind: 'standings', label: 'Standings' },
  { kind: 'crosstable', label: 'Crosstable' },
  { kind: 'qr', label: 'Players’ QR cards' },
];

/** The file name of a `Content-Disposition: attachment; filename="..."`. */
export function attachmentName(header: string | null, fallback: string): string {
  const m = /filename="([^"]+)"/.exec(header ?? '');
  return m ? m[1] : fallback;
}

async function errorText(r: Response): Promise<string> {
  const t = await r.text();
  try {
    const j = JSON.parse(t);
    if (j && typeof j.error === 'string') return j.error;
  } catch {
    /* plain text */
  }
  return t || `${r.status} ${r.statusText}`;
}

/** Fetch an export with the director's token and save it under the server's name. */
async function download(host: ConsoleHost, kind: string, label: string): Promise<void> {
  try {
    const r = await fetch(`/api/events/${encodeURIComponent(host.id)}/export/${kind}`, { headers: { authorization: `Bearer ${host.token}` } });
    if (!r.ok) throw new Error(await errorText(r));
    const name = attachmentName(r.headers.get('content-disposition'), `evening.${kind}`);
    const url = URL.createObjectURL(await r.blob());
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    host.dispatch({ type: 'notice', notice: { text: `${name} is saved (${label}).` } });
  } catch (e) {
    host.dispatch({ type: 'error', error: `${label} could not be made: ${(e as Error).message}` });
  }
}

export function menuV(host: ConsoleHost): VNode {
  const id = encodeURIComponent(host.id);
  const token = encodeURIComponent(host.token);
  const round = host.model.event?.rounds_paired ?? 0;
  const print = (kind: string) => `/events/${id}/print/${kind}${kind === 'qr' ? `?token=${token}` : ''}`;
  return h('details.console-menu', [
    h('summary', 'Print, show and save'),
    h('div.menu-groups', [
      h('div.menu-group', { attrs: { role: 'group', 'aria-labelledby': 'menu-print' } }, [
        h('h3#menu-print', 'Print'),
        h(
          'ul',
          PRINTS.map((p) =>
            h('li', [
              h(`a.print-${p.kind}`, { attrs: { href: print(p.kind), target: '_blank' } }, p.label),
              (p.kind === 'pairings' || p.kind === 'slips') && round > 0 ? h('small', ` round ${round}`) : null,
            ]),
          ),
        ),
      ]),
      h('div.menu-group', { attrs: { role: 'group', 'aria-labelledby': 'menu-show' } }, [
        h('h3#menu-show', 'Show'),
        h('ul', [
          h('li', [h('a.show-projector', { attrs: { href: `/events/${id}/projector`, target: '_blank' } }, 'Projector'), h('small', ' for the hall’s screen')]),
          h('li', [h('a.show-venue', { attrs: { href: `/events/${id}/join`, target: '_blank' } }, 'Venue page'), h('small', ' where players find their board')]),
        ]),
      ]),
      h('div.menu-group', { attrs: { role: 'group', 'aria-labelledby': 'menu-save' } }, [
        h('h3#menu-save', 'Save a file'),
        h(
          'ul',
          FILES.map((f) =>
            h('li', [
              h(
                `button.export.export-${f.kind}`,
                { attrs: { type: 'button', 'data-kind': f.kind }, on: { click: () => void download(host, f.kind, f.label) } },
                f.label,
              ),
              h('small', ` ${f.what}`),
            ]),
          ),
        ),
        h('small.menu-note', 'The US Chess files need the dates, the city, state and ZIP, the affiliate and the chief TD’s id (Report details below), and every result in.'),
      ]),
    ]),
  ]);
}
