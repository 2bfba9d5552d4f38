// The console's player editor: a player's name, rating, federation and ids corrected
// (`PUT /api/events/{id}/players/{n}`), and a player removed before round 1
// (`POST .../players/{n}/remove`, asked twice). The server decides: a rating that is not a
// number is refused naming the field, a rating changed before round 1 moves the pairing
// numbers, a new name gives a new personal link (shown, as the link of a new player).
import { h, type VNode } from 'snabbdom';
import type { EveningPlayer, PlayerEdited } from '../wire';
import { absolute, playerAction } from './common';
import type { ConsoleHost } from './menu';

/** The form below a long table is brought to the screen when it opens (a phone's 30 rows). */
const bringIntoView = (v: VNode): void => (v.elm as HTMLElement | undefined)?.scrollIntoView?.({ block: 'nearest' });

interface Draft {
  number: number;
  name: string;
  rating: string;
  federation: string;
  fide_id: string;
  uscf_id: string;
}

export class PlayerEditor {
  draft: Draft | null = null;
  /** The player whose removal waits for "Yes, remove". */
  removing: number | null = null;

  constructor(private readonly redraw: () => void) {}

  /** The row's buttons: Edit, and Remove while no round is paired. */
  buttons(host: ConsoleHost, p: EveningPlayer): VNode[] {
    const e = host.model.event;
    const out = [
      h(
        'button.edit-player',
        {
          attrs: { type: 'button', disabled: host.model.busy, 'aria-label': `Edit: ${p.name}` },
          on: {
            click: () => {
              this.draft = { number: p.number, name: p.name, rating: p.rating === null ? '' : String(p.rating), federation: p.federation ?? '', fide_id: p.fide_id === null ? '' : String(p.fide_id), uscf_id: p.uscf_id ?? '' };
              this.removing = null;
              this.redraw();
            },
          },
        },
        'Edit',
      ),
    ];
    if (e && e.rounds_paired === 0) {
      out.push(
        h(
          'button.remove-player',
          {
            attrs: { type: 'button', disabled: host.model.busy, 'aria-label': `Remove: ${p.name}` },
            on: {
              click: () => {
                this.removing = p.number;
                this.draft = null;
                this.redraw();
              },
            },
          },
          'Remove',
        ),
      );
    }
    return out;
  }

  /** The edit form or the removal's question, under the players' table. */
  view(host: ConsoleHost): VNode | null {
    const players = host.model.event?.players ?? [];
    if (this.removing !== null) {
      const p = players.find((x) => x.number === this.removing);
      if (!p || (host.model.event?.rounds_paired ?? 0) > 0) return null;
      return h('div.remove-ask', { attrs: { role: 'alertdialog', 'aria-labelledby': 'remove-q' }, hook: { insert: bringIntoView } }, [
        h('p#remove-q', `Remove ${p.name} (${p.number}) from the evening? Players below move up one pairing number. Their link stops working; entering the same name again gives the same link.`),
        h('div.buttons', [
          h(
            'button.primary.confirm-remove',
            {
              attrs: { type: 'button', disabled: host.model.busy },
              on: {
                click: () => {
                  const name = p.name;
                  void host.act(playerAction(p.number, 'remove'), 'POST', undefined, () => {
                    this.removing = null;
                    host.dispatch({ type: 'notice', notice: { text: `${name} is removed.` } });
                  });
                },
              },
            },
            `Yes, remove ${p.name}`,
          ),
          h(
            'button.cancel-remove',
            {
              attrs: { type: 'button' },
              on: {
                click: () => {
                  this.removing = null;
                  this.redraw();
                },
              },
            },
            'Keep',
          ),
        ]),
      ]);
    }
    const d = this.draft;
    if (!d) return null;
    const p = players.find((x) => x.number === d.number);
    if (!p) return null;
    const started = (host.model.event?.rounds_paired ?? 0) > 0;
    const field = (key: keyof Omit<Draft, 'number'>, label: string, extra: Record<string, string> = {}) =>
      h('label.detail', [
        h('span.what', label),
        h(`input#edit-${key.replace('_', '-')}`, {
          attrs: { name: key, autocomplete: 'off', ...extra },
          props: { value: d[key] },
          on: {
            input: (ev: Event) => {
              this.draft = { ...(this.draft ?? d), [key]: (ev.target as HTMLInputElement).value };
            },
          },
        }),
      ]);
    return h(
      'form.edit-player-form',
      {
        attrs: { 'aria-labelledby': 'edit-title' },
        hook: { insert: bringIntoView },
        on: {
          submit: (ev: Event) => {
            ev.preventDefault();
            const x = this.draft ?? d;
            const body = { name: x.name, rating: x.rating, federation: x.federation, fide_id: x.fide_id, uscf_id: x.uscf_id };
            void host.act<PlayerEdited>(`/players/${x.number}`, 'PUT', body, (a) => {
              this.draft = null;
              const renumbered = a.effects.some((f) => f.effect === 'renumbered');
              const text = `${x.name.trim()}: saved.${renumbered ? ' The pairing numbers follow the new rating.' : ''}`;
              host.dispatch({ type: 'notice', notice: a.link ? { text: `${text} The new name has a new personal link (the old one no longer opens their page; print their QR card again): `, link: absolute(a.link) } : { text } });
            });
          },
        },
      },
      [
        h('h3#edit-title', `Edit ${p.name} (${p.number})`),
        h('div.fields', [
          field('name', 'Name', { maxlength: '64' }),
          field('rating', 'Rating', { inputmode: 'numeric' }),
          field('federation', 'Federation', { maxlength: '3' }),
          field('fide_id', 'FIDE id', { inputmode: 'numeric' }),
          field('uscf_id', 'US Chess id', { inputmode: 'numeric' }),
        ]),
        h('small', started ? 'Round 1 is paired: the pairing numbers stay; the new rating counts from now on (standings, exports and rating reports), and rounds already paired are not paired again.' : 'Before round 1 the pairing numbers follow the ratings: a new rating may move this player. A blank rating is unrated.'),
        h('div.buttons', [
          h('button.primary.save-player', { attrs: { type: 'submit', disabled: host.model.busy } }, 'Save'),
          h(
            'button.cancel-edit',
            {
              attrs: { type: 'button' },
              on: {
                click: () => {
                  this.draft = null;
                  this.redraw();
                },
              },
            },
            'Cancel',
          ),
        ]),
      ],
    );
  }
}
