// A game across the nodes of a cluster (issue 22, docs/cluster.md), as its players see it:
// White's page on node n2, Black's on node n1 (the node that created the game, its owner),
// a spectator's on n2. Moves made by clicks on either page go through the owner and show
// on the others; then the owner is killed (SIGKILL) and the page on the surviving node
// plays on once n2 takes the game over. PostgreSQL (FLAGFALL_TEST_POSTGRES, as the Rust
// suites) and nats-server are required: the test fails without them.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { clickSquare, createGame, freePort, getState, openPage, shot, startBrowser, startServer, waitState, DESKTOP, PHONE } from './harness.mjs';

const PG = process.env.FLAGFALL_TEST_POSTGRES || 'postgres://postgres@127.0.0.1:5432/test';
const NATS = ['/usr/sbin/nats-server', '/usr/bin/nats-server'].find(existsSync) || 'nats-server';
const dbName = `ffweb_cluster_${process.pid}`;
let nats;
let nodes = [];
let browser;

function psql(sql) {
  execFileSync('psql', [PG, '-qtAc', sql], { stdio: ['ignore', 'pipe', 'pipe'] });
}

before(async () => {
  psql(`DROP DATABASE IF EXISTS ${dbName}`);
  psql(`CREATE DATABASE ${dbName}`);
  const port = await freePort();
  nats = spawn(NATS, ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  process.once('exit', () => nats.exitCode === null && nats.kill('SIGKILL'));
  const database = PG.replace(/\/[^/]*$/, `/${dbName}`);
  for (const name of ['n1', 'n2']) {
    nodes.push(await startServer(['--nats', `nats://127.0.0.1:${port}`, '--node', name, '--lease-ms', '2000'], { database }));
  }
  browser = await startBrowser();
});

after(async () => {
  await browser?.close();
  for (const n of nodes) await n.stop();
  nats?.kill('SIGKILL');
  try {
    psql(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  } catch {
    /* the server is gone: nothing to drop */
  }
});

/** The state once it has `moves` moves; `GET` answers 503 while the game changes nodes. */
async function waitMoved(base, id, moves, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try {
      last = await getState(base, id);
      if (last.moves.length === moves) return last;
    } catch (e) {
      last = String(e);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no ${moves} moves within ${timeoutMs} ms; last: ${JSON.stringify(last).slice(0, 300)}`);
}

test('a game played by clicks across two nodes, then on after its owner is killed', async () => {
  const [n1, n2] = nodes;
  const g = await createGame(n1.base, { rules: 'fide-b3', time_control: '3+2', mode: 'online', white: 'Ada', black: 'Bao' });
  assert.equal((await getState(n2.base, g.id)).node, 'n1', 'the creating node serves the game');
  const white = await openPage(browser, n2.base, g.urls.white, DESKTOP);
  const black = await openPage(browser, n1.base, g.urls.black, PHONE);
  const spectator = await openPage(browser, n2.base, g.urls.spectator, PHONE);
  for (const p of [white, black, spectator]) await p.page.locator('.clock.bottom .time').waitFor();
  // 1. e4 on n2 (routed to n1), 1... e5 on n1 (relayed to n2's pages).
  await clickSquare(white.page, 'e2', 'white');
  await clickSquare(white.page, 'e4', 'white');
  await waitState(n1.base, g.id, (s) => s.moves.length === 1, '1. e4');
  await black.page.locator('.moves .mv', { hasText: 'e4' }).waitFor();
  await clickSquare(black.page, 'e7', 'black');
  await clickSquare(black.page, 'e5', 'black');
  await white.page.locator('.moves .mv', { hasText: 'e5' }).waitFor();
  await spectator.page.locator('.moves .mv', { hasText: 'e5' }).waitFor();
  await shot(white.page, 'cluster-white-on-n2-desktop');
  await shot(black.page, 'cluster-black-on-n1-phone');
  await shot(spectator.page, 'cluster-spectator-on-n2-phone');
  // The owner dies. White's page on n2 keeps its socket; its next move waits for the
  // takeover (the lease, 2 s, then a scan) and is played by n2.
  process.kill(n1.pid, 'SIGKILL');
  await clickSquare(white.page, 'g1', 'white');
  await clickSquare(white.page, 'f3', 'white');
  const s = await waitMoved(n2.base, g.id, 3, 20_000);
  assert.equal(s.node, 'n2');
  assert.deepEqual(s.moves.map((m) => m.uci), ['e2e4', 'e7e5', 'g1f3']);
  await white.page.locator('.moves .mv', { hasText: 'Nf3' }).waitFor();
  await spectator.page.locator('.moves .mv', { hasText: 'Nf3' }).waitFor();
  await shot(white.page, 'cluster-white-after-takeover-desktop');
  await shot(spectator.page, 'cluster-spectator-after-takeover-phone');
  for (const p of [white, spectator]) assert.deepEqual(p.errors, [], 'no page errors');
  // The killed node's page cannot reach its server: its socket is gone (its player would
  // reconnect through the load balancer to a live node).
  nodes = [n2];
});
