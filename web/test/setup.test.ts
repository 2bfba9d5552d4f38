// The new evening's form: its reducer, the body it sends and the upload's Content-Type.
import { describe, expect, it } from 'vitest';
import { FORMATS, initialSetup, needsRounds, reduceSetup, setupBody, uploadType, type SetupForm } from '../src/event/setupmodel';
import { route } from '../src/router';
import { createFields, detailsOf, emptyDetails, reportBody, today } from '../src/event/detailsmodel';
import type { EveningSummary } from '../src/wire';

const rulesets = {
  rulesets: [
    { id: 'uscf-2020', name: 'US Chess', notation: 'G/minutes', controls: ['G/5;d0', 'G/3;d2'] },
    { id: 'fide-b3', name: 'FIDE', notation: 'minutes+increment', controls: ['3+2', '5+0'] },
  ],
  quick: [{ rules: 'fide-b3', time_control: '3+2' }],
};

const form = (over: Partial<SetupForm> = {}): SetupForm => ({ ...initialSetup().form, name: 'Friday', rules: 'uscf-2020', time_control: 'G/5;d0', details: emptyDetails(''), ...over });

describe('the new evening', () => {
  it('has its own page, linked from the lobby', () => {
    expect(route('/events/new', '')).toEqual({ page: 'event-new' });
    expect(route('/events/e1/direct', '?token=t')).toEqual({ page: 'event-direct', id: 'e1', token: 't' });
  });

  it('offers the six formats the server takes, rounds for the Swiss ones only', () => {
    expect(FORMATS.map((f) => f.id).sort()).toEqual(['double-round-robin', 'double-swiss', 'round-robin', 'round-robin-matches', 'swiss', 'us-swiss']);
    expect(FORMATS.filter((f) => needsRounds(f.id)).map((f) => f.id)).toEqual(['swiss', 'double-swiss', 'us-swiss']);
  });

  it('takes the first ruleset and its first control, a ruleset change brings its own, a quick button both', () => {
    let m = reduceSetup(initialSetup(), { type: 'rulesets', rulesets });
    expect(m.form.rules).toBe('uscf-2020');
    expect(m.form.time_control).toBe('G/5;d0');
    m = reduceSetup(m, { type: 'form', form: { rules: 'fide-b3' } });
    expect(m.form.time_control).toBe('3+2');
    m = reduceSetup(m, { type: 'quick', rules: 'uscf-2020', time_control: 'G/3;d2' });
    expect(m.form).toMatchObject({ rules: 'uscf-2020', time_control: 'G/3;d2' });
  });

  it('says when a quick button changes the ruleset, and not otherwise; a ruleset chosen by hand clears it', () => {
    let m = reduceSetup(initialSetup(), { type: 'rulesets', rulesets });
    m = reduceSetup(m, { type: 'quick', rules: 'uscf-2020', time_control: 'G/3;d2' });
    expect(m.ruleNote).toBeNull();
    m = reduceSetup(m, { type: 'quick', rules: 'fide-b3', time_control: '3+2' });
    expect(m.ruleNote).toMatch(/^The ruleset is now .+: 3\+2 is one of its time controls\.$/);
    m = reduceSetup(m, { type: 'form', form: { rules: 'uscf-2020' } });
    expect(m.ruleNote).toBeNull();
  });

  it('sends the rounds for a Swiss, the mode for server play and the confirmation for boards', () => {
    expect(setupBody(form({ format: 'swiss', rounds: ' 7 ', play: 'server', mode: 'online' }))).toEqual({
      body: { name: 'Friday', format: 'swiss', rounds: 7, rules: 'uscf-2020', time_control: 'G/5;d0', play: 'server', mode: 'online' },
    });
    expect(setupBody(form({ format: 'round-robin', rounds: '7', play: 'board', confirm: 'both' }))).toEqual({
      body: { name: 'Friday', format: 'round-robin', rules: 'uscf-2020', time_control: 'G/5;d0', play: 'board', confirm: 'both' },
    });
    expect(setupBody(form({ format: 'round-robin', auto: true }))).toMatchObject({ body: { auto: true } });
    expect(setupBody(form({ format: 'round-robin' }))).not.toHaveProperty('body.auto');
  });

  it('names a rounds field that is not a number, and leaves the rest to the server', () => {
    for (const rounds of ['', 'five', '0', '2.5', '-3']) {
      const b = setupBody(form({ format: 'double-swiss', rounds }));
      expect(b).toEqual({ error: expect.stringMatching(/^Rounds: .* is not a number of rounds/) });
    }
    // An empty name is the server's to refuse, in its words.
    expect(setupBody(form({ name: '  ' }))).toMatchObject({ body: { name: '' } });
  });

  it('keeps an error until the next attempt, which clears it', () => {
    let m = reduceSetup(initialSetup(), { type: 'error', error: 'the event name is empty' });
    expect(m.error).toBe('the event name is empty');
    m = reduceSetup(m, { type: 'busy', on: true });
    expect(m).toMatchObject({ error: null, busy: true });
  });

  it('uploads a .csv as CSV, a .trf as TRF and anything else for the server to recognise', () => {
    expect(uploadType('club.CSV')).toBe('text/csv');
    expect(uploadType('april.trf')).toBe('application/x-trf');
    expect(uploadType('players.txt')).toBe('text/plain');
    expect(uploadType('players')).toBe('text/plain');
  });

  it('starts and ends today, and sends the details the reports need with the evening', () => {
    expect(today(new Date(2026, 10, 7))).toBe('2026-11-07');
    expect(initialSetup().form.details).toMatchObject({ date: today(), end_date: today(), site: '', city: '' });
    const details = { ...emptyDetails('2026-11-27'), site: ' Springfield CC ', city: 'Springfield', chief_arbiter: 'Dana Reyes', uscf_affiliate: 'A1234567', state: '  ' };
    expect(setupBody(form({ details }))).toMatchObject({
      body: { date: '2026-11-27', site: 'Springfield CC', report: { end_date: '2026-11-27', city: 'Springfield', chief_arbiter: 'Dana Reyes', uscf_affiliate: 'A1234567' } },
    });
    // Blank details are left out of a new evening, sent (to be cleared) by the console.
    expect(createFields(emptyDetails(''))).toEqual({});
    expect(reportBody({ ...emptyDetails(''), city: 'Peoria' })).toEqual({ date: '', site: '', city: 'Peoria' });
  });

  it('starts the console\'s form from what the evening holds', () => {
    const e = { date: '2026-11-27', site: 'Hall', report: { city: 'Peoria', uscf_chief_td: '12345678' } } as unknown as EveningSummary;
    expect(detailsOf(e)).toMatchObject({ date: '2026-11-27', end_date: '', site: 'Hall', city: 'Peoria', uscf_chief_td: '12345678', state: '' });
  });
});
