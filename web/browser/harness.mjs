// Browser-test harness: starts the real `flagfall serve` on a free loopback port with a
// temporary SQLite database, and Debian's Chromium through playwright-core (never a
// browser a tool downloads).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = resolve(here, '../..');
export const screenshotDir = join(repoRoot, 'web/screenshots');

export const CHROMIUM = process.env.FLAGFALL_CHROMIUM || '/usr/bin/chromium';
/** Where cargo builds (CARGO_TARGET_DIR, .cargo/config, ...): cargo itself says, as the rest of the suite asks. */
function cargoTargetDir() {
  const out = execFileSync('cargo', ['metadata', '--format-version', '1', '--no-deps'], { cwd: repoRoot, maxBuffer: 64 << 20 });
  return JSON.parse(out.toString()).target_directory;
}
export const BINARY = process.env.FLAGFALL_BIN || join(cargoTargetDir(), 'debug', 'flagfall');

export function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

async function waitHealthy(base, child, log) {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`flagfall serve exited with ${child.exitCode}:\n${log()}`);
    try {
      const r = await fetch(`${base}/healthz`);
      if (r.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`flagfall serve did not answer /healthz within 20 s:\n${log()}`);
}

/**
 * Starts `flagfall serve` (extra arguments appended) and returns {base, stop, pid};
 * `database` replaces the temporary SQLite file (a cluster's nodes share PostgreSQL).
 */
export async function startServer(extraArgs = [], { database } = {}) {
  if (!existsSync(BINARY)) throw new Error(`no flagfall binary at ${BINARY}: run cargo build -p flagfall-cli first (or set FLAGFALL_BIN)`);
  const dir = mkdtempSync(join(tmpdir(), 'flagfall-web-'));
  const port = await freePort();
  const db = database || join(dir, 'test.db');
  let output = '';
  const child = spawn(BINARY, ['serve', '--listen', `127.0.0.1:${port}`, '--database', db, ...extraArgs], {
    cwd: dir,
    env: { ...process.env, RUST_LOG: process.env.RUST_LOG || 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Never leave a server behind, even when the test process is killed or fails early.
  const reap = () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  process.once('exit', reap);
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const base = `http://127.0.0.1:${port}`;
  await waitHealthy(base, child, () => output);
  return {
    base,
    pid: child.pid,
    log: () => output,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => {
          const t = setTimeout(() => {
            child.kill('SIGKILL');
            r();
          }, 5000);
          child.once('exit', () => {
            clearTimeout(t);
            r();
          });
        });
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startBrowser() {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (apt-get install chromium), or set FLAGFALL_CHROMIUM`);
  // playwright-core gives every launch a fresh temporary profile (user-data-dir).
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** The viewports every page is looked at in: a desktop and a phone. */
export const DESKTOP = { width: 1280, height: 820 };
export const PHONE = { width: 390, height: 844 };

/**
 * Opens `path` of the server in a fresh browser context at `viewport`; `errors` collects
 * the page's uncaught errors and console errors (a test asserts it stays empty).
 */
export async function openPage(browser, base, path, viewport = DESKTOP) {
  const ctx = await browser.newContext({ viewport, deviceScaleFactor: 1 });
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto(base + path);
  return { ctx, page, errors };
}

export async function createGame(base, body) {
  const r = await fetch(`${base}/api/games`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (r.status !== 201) throw new Error(`POST /api/games answered ${r.status}: ${await r.text()}`);
  return r.json();
}

export async function getState(base, id) {
  const r = await fetch(`${base}/api/games/${id}`);
  if (!r.ok) throw new Error(`GET /api/games/${id} answered ${r.status}`);
  return r.json();
}

export async function shot(page, name, fullPage = false) {
  mkdirSync(screenshotDir, { recursive: true });
  const path = join(screenshotDir, `${name}.png`);
  await page.screenshot({ path, fullPage });
  return path;
}

/** Clicks the centre of a square on a page's chessground board. */
export async function clickSquare(page, square, orientation = 'white', boardSelector = '.board cg-board') {
  const box = await page.locator(boardSelector).first().boundingBox();
  if (!box) throw new Error('no board on the page');
  const file = square.charCodeAt(0) - 97;
  const rank = Number(square[1]) - 1;
  const col = orientation === 'white' ? file : 7 - file;
  const row = orientation === 'white' ? 7 - rank : rank;
  const size = box.width / 8;
  await page.mouse.click(box.x + size * (col + 0.5), box.y + size * (row + 0.5));
}

/** Waits until the server's state for game `id` satisfies `pred` (polling the HTTP API). */
export async function waitState(base, id, pred, what, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    last = await getState(base, id);
    if (pred(last)) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}; last state: ${JSON.stringify(last).slice(0, 600)}`);
}

/** One call of the evening's API (docs/protocol.md "Evenings"): the answer's JSON; throws naming the status otherwise. */
export async function eventApi(base, method, path, token, body) {
  const headers = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const r = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${path} answered ${r.status}: ${text}`);
  return text ? JSON.parse(text) : null;
}

/**
 * What a PDF says of its pages: their count and each page's MediaBox in points. Chromium's
 * PDFs keep the page dictionaries as plain objects (only content streams are compressed).
 */
export function pdfPages(buf) {
  const text = buf.toString('latin1');
  if (!text.startsWith('%PDF-')) throw new Error('not a PDF');
  const box = (obj) => {
    const m = /\/MediaBox\s*\[\s*([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s*\]/.exec(obj);
    return m ? { width: Number(m[3]) - Number(m[1]), height: Number(m[4]) - Number(m[2]) } : null;
  };
  const objects = text.split(/\bendobj\b/);
  const tree = objects.find((o) => /\/Type\s*\/Pages\b/.test(o));
  const inherited = tree ? box(tree) : null;
  const pages = objects.filter((o) => /\/Type\s*\/Page(?![s\w])/.test(o)).map((o) => box(o) ?? inherited);
  return { count: pages.length, boxes: pages };
}

/**
 * Fills `selector` with `value` as a person does, after the page has drawn what the last
 * action changed: a change that sets the field (a ruleset's default time control) and is
 * drawn at the next animation frame could land between playwright's select-all and its
 * typing, leaving "3+23+2" where no person types that fast. Checked, filled again if so.
 */
export async function fillSettled(page, selector, value) {
  for (let i = 0; i < 5; i++) {
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await page.fill(selector, value);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    if ((await page.inputValue(selector)) === value) return;
  }
  throw new Error(`${selector} would not keep ${JSON.stringify(value)}: it reads ${JSON.stringify(await page.inputValue(selector))}`);
}
