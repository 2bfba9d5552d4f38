// The details the rating reports and the exports need, as the new evening's form and the
// console's report details hold them, and the bodies they send (pure: no DOM, the unit
// tests run it). The view is ./details.ts.
import type { EveningSummary } from '../wire';

/** The form's fields, as typed (text; blank is "not set"). */
export interface Details {
  date: string;
  end_date: string;
  site: string;
  city: string;
  state: string;
  zip: string;
  country: string;
  federation: string;
  chief_arbiter: string;
  deputy_arbiters: string;
  uscf_affiliate: string;
  uscf_chief_td: string;
  uscf_assistant_td: string;
}

/** The keys of `report` (the rest, `date` and `site`, are the event's own). */
export const REPORT_KEYS = ['end_date', 'city', 'state', 'zip', 'country', 'federation', 'chief_arbiter', 'deputy_arbiters', 'uscf_affiliate', 'uscf_chief_td', 'uscf_assistant_td'] as const;

/** Today in this browser's calendar, `YYYY-MM-DD`. */
export function today(now: Date = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${p(now.getMonth() + 1)}-${p(now.getDate())}`;
}

/** A new evening's details: it starts and ends today. */
export function emptyDetails(day: string = today()): Details {
  return { date: day, end_date: day, site: '', city: '', state: '', zip: '', country: '', federation: '', chief_arbiter: '', deputy_arbiters: '', uscf_affiliate: '', uscf_chief_td: '', uscf_assistant_td: '' };
}

/** The details an evening holds (the console's form starts from them). */
export function detailsOf(e: EveningSummary): Details {
  const d = emptyDetails('');
  d.date = e.date ?? '';
  d.site = e.site ?? '';
  for (const k of REPORT_KEYS) d[k] = e.report?.[k] ?? '';
  return d;
}

function reportOf(d: Details): Record<string, string> {
  const report: Record<string, string> = {};
  for (const k of REPORT_KEYS) if (d[k].trim()) report[k] = d[k].trim();
  return report;
}

/** The fields of `POST /api/events` the details give (blank fields left out). */
export function createFields(d: Details): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (d.date.trim()) out.date = d.date.trim();
  if (d.site.trim()) out.site = d.site.trim();
  const report = reportOf(d);
  if (Object.keys(report).length) out.report = report;
  return out;
}

/** The body of `PUT /api/events/{id}/report`: every detail (a blank one is cleared). */
export function reportBody(d: Details): Record<string, unknown> {
  return { date: d.date.trim(), site: d.site.trim(), ...reportOf(d) };
}

