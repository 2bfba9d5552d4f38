// The console's report details (`PUT /api/events/{id}/report`): the dates, site, arbiters
// and federations' ids the exports and the rating reports carry, editable any time. The
// form starts from what the evening holds; the server names a field it refuses.
import { h, type VNode } from 'snabbdom';
import { detailsFields, detailsOf, reportBody, type Details } from './details';
import type { ConsoleHost } from './menu';

export class ReportEditor {
  /** The form while it is being edited; null shows the details as they are. */
  draft: Details | null = null;

  constructor(private readonly redraw: () => void) {}

  view(host: ConsoleHost): VNode | null {
    const e = host.model.event;
    if (!e) return null;
    const held = detailsOf(e);
    const shown = [
      ['Dates', held.date ? `${held.date}${held.end_date && held.end_date !== held.date ? ` to ${held.end_date}` : ''}` : ''],
      ['Site', [held.site, held.city, held.state, held.zip, held.country].filter(Boolean).join(', ')],
      ['Chief arbiter or TD', held.chief_arbiter],
      ['Host federation', held.federation],
      ['US Chess', [held.uscf_affiliate && `affiliate ${held.uscf_affiliate}`, held.uscf_chief_td && `chief TD ${held.uscf_chief_td}`, held.uscf_assistant_td && `assistant TD ${held.uscf_assistant_td}`].filter(Boolean).join(', ')],
    ];
    const d = this.draft;
    return h('section.report-details', { attrs: { 'aria-labelledby': 'details-title' } }, [
      h('h2#details-title', 'Report details'),
      d
        ? h(
            'form.details-form',
            {
              on: {
                submit: (ev: Event) => {
                  ev.preventDefault();
                  void host.act('/report', 'PUT', reportBody(this.draft ?? d), () => {
                    this.draft = null;
                    host.dispatch({ type: 'notice', notice: { text: 'The report details are saved: the exports carry them.' } });
                  });
                },
              },
            },
            [
              ...detailsFields('rep', d, (patch) => {
                this.draft = { ...(this.draft ?? d), ...patch };
                this.redraw();
              }),
              h('div.buttons', [
                h('button.primary.save-details', { attrs: { type: 'submit', disabled: host.model.busy } }, 'Save the details'),
                h(
                  'button.cancel-details',
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
          )
        : h('div', [
            h(
              'dl.details',
              shown.flatMap(([k, v]) => [h('dt', k), h('dd', v || h('span.muted', 'not set'))]),
            ),
            h(
              'button.edit-details',
              {
                attrs: { type: 'button' },
                on: {
                  click: () => {
                    this.draft = held;
                    this.redraw();
                  },
                },
              },
              'Edit the report details',
            ),
          ]),
    ]);
  }
}
