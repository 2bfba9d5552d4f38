import { describe, expect, it } from 'vitest';
import type { Challenge } from '../src/api';
import { challengeText, creatorDestination, gameSummaryText, reduceChallenge } from '../src/lobbyview';

const at = () => '10:30';

describe('game list lines', () => {
  it('name the players, ruleset, time control and mode the server lists', () => {
    expect(gameSummaryText({ id: 'abcdef123456', white: 'Ann', black: 'Bo', rules: 'uscf-2020', time_control: 'G/5;d0', mode: 'otb', created_ms: 1 }, at)).toEqual({
      names: 'Ann – Bo',
      what: 'uscf-2020 · G/5;d0 · over the board · created 10:30',
    });
    expect(gameSummaryText({ id: 'abcdef123456', white: null, black: 'Computer', rules: 'fide-b3', time_control: '3+2', mode: 'online' }, at)).toEqual({
      names: 'Anonymous – Computer',
      what: 'fide-b3 · 3+2 · online',
    });
  });

  it('call a player without a name Anonymous, never by a colour', () => {
    expect(gameSummaryText({ id: 'abcdef123456', white: null, black: null, rules: 'uscf-2020', time_control: 'G/5' }, at).names).toBe('Anonymous – Anonymous');
  });

  it('word a field error for a person', async () => {
    const { fieldError } = await import('../src/api');
    expect(fieldError('field `time_control`: "G/x" is not a time control')).toBe('Time control: "G/x" is not a time control');
    expect(fieldError('something else')).toBe('something else');
  });
});

const challenge = (over: Partial<Challenge> = {}): Challenge => ({
  id: 'c1',
  status: 'open',
  color: 'white',
  name: 'Ann',
  rules: 'uscf-2020',
  time_control: 'G/5;d0',
  mode: 'otb',
  created_ms: 5,
  ...over,
});

describe('open challenges', () => {
  it('say who offers what and which colour the accepter gets', () => {
    expect(challengeText(challenge())).toBe('Ann · uscf-2020 · G/5;d0 · over the board · White for Ann, so you play Black');
    expect(challengeText(challenge({ name: null, color: 'random', mode: 'online' }))).toBe('Someone · uscf-2020 · G/5;d0 · online · random colours');
    expect(challengeText(challenge(), true)).toBe('Ann · uscf-2020 · G/5;d0 · over the board · you play White');
    expect(challengeText(challenge({ color: 'random' }), true)).toMatch(/colours drawn when someone accepts$/);
  });

  it('send the creator to the game once accepted, as a player only (no director)', () => {
    expect(creatorDestination(challenge())).toBeNull();
    expect(creatorDestination(challenge({ status: 'cancelled' }))).toBeNull();
    const accepted = challenge({
      status: 'accepted',
      game: { id: 'g9', color: 'white', token: 'tw', url: '/play/g9?token=tw' },
    });
    expect(creatorDestination(accepted)).toEqual({ url: '/play/g9?token=tw' });
  });
});

describe('the lobby reducer', async () => {
  const { createBody, initialLobby, reduceLobby } = await import('../src/lobbymodel');
  const rulesets = {
    rulesets: [
      { id: 'uscf-2020', name: 'US Chess', notation: 'G/5;d0', controls: ['G/5;d0', 'G/3;d2'] },
      { id: 'fide-b3', name: 'FIDE', notation: '3+2', controls: ['3+2', '5+0'] },
    ],
    quick: [{ rules: 'fide-b3', time_control: '1+0' }],
  };
  it('takes the rulesets from the server, the first usual control by default', () => {
    const m = reduceLobby(initialLobby(), { type: 'rulesets', rulesets });
    expect(m.form.rules).toBe('uscf-2020');
    expect(m.form.time_control).toBe('G/5;d0');
    expect(m.practice.time_control).toBe('G/5;d0');
    const fide = reduceLobby(m, { type: 'form', form: { rules: 'fide-b3' } });
    expect(fide.form.time_control).toBe('3+2');
    // The free field is kept while the ruleset stays.
    const typed = reduceLobby(fide, { type: 'form', form: { time_control: '4+1' } });
    expect(reduceLobby(typed, { type: 'form', form: { name: 'Ann' } }).form.time_control).toBe('4+1');
  });
  it('sets ruleset and time control from a quick button', () => {
    const m = reduceLobby(reduceLobby(initialLobby(), { type: 'rulesets', rulesets }), { type: 'quick', rules: 'fide-b3', time_control: '1+0' });
    expect([m.form.rules, m.form.time_control]).toEqual(['fide-b3', '1+0']);
  });
  it('drops the last game block when a later attempt fails', () => {
    const answer = { id: 'g', tokens: { white: 'a', black: 'b', director: 'd' }, urls: { white: '/w', black: '/b', director: '/d', spectator: '/s' } };
    let m = reduceLobby(initialLobby(), { type: 'created', answer, mine: 'white' });
    expect(m.created?.answer.id).toBe('g');
    m = reduceLobby(m, { type: 'error', error: 'Could not create the game: Time control: bad' });
    expect(m.created).toBeNull();
    expect(m.error).toMatch(/Time control/);
  });
  it('gives the names to the creator\'s colour and the other', () => {
    const f = { ...initialLobby().form, rules: 'uscf-2020', time_control: ' G/5;d0 ', name: 'Ann', opponent: 'Bo' };
    expect(createBody(f, 'black')).toEqual({ rules: 'uscf-2020', time_control: 'G/5;d0', mode: 'otb', director: true, black: 'Ann', white: 'Bo' });
  });
});

describe('the challenge page reducer', () => {
  const base = { challenge: null, status: 'Loading the challenge…', done: false, error: null };
  const c = (status: Challenge['status'], game?: Challenge['game']): Challenge => ({ id: 'c1', status, color: 'white', name: 'Ann', rules: 'uscf-2020', time_control: 'G/5;d0', mode: 'otb', created_ms: 1, ...(game ? { game } : {}) }) as Challenge;
  it('waits while open, stops once accepted, cancelled or expired', () => {
    expect(reduceChallenge(base, { type: 'read', challenge: c('open'), secret: true })).toMatchObject({ done: false, status: 'Open: waiting for someone to accept…' });
    expect(reduceChallenge(base, { type: 'read', challenge: c('expired'), secret: true }).done).toBe(true);
    expect(reduceChallenge(base, { type: 'cancelled' })).toMatchObject({ done: true, status: 'This challenge was cancelled.' });
    const err = reduceChallenge(base, { type: 'error', error: 'Could not read the challenge: 500' });
    expect(err.error).toMatch(/500/);
    expect(reduceChallenge(err, { type: 'read', challenge: c('open'), secret: true }).error).toBeNull();
  });
});
