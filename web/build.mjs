// Builds web/dist: index.html, app.js (one bundle) and app.css (the page's CSS with
// chessground's board and piece CSS, pieces as embedded SVG). Deterministic: the same
// sources and lockfile give the same bytes, so CI can diff the committed dist/.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'dist');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

await build({
  entryPoints: { app: join(here, 'src/main.ts') },
  bundle: true,
  format: 'esm',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  minify: true,
  sourcemap: false,
  legalComments: 'eof',
  outdir: out,
  logLevel: 'warning',
  charset: 'utf8',
});
copyFileSync(join(here, 'index.html'), join(out, 'index.html'));
console.log('web/dist built');
