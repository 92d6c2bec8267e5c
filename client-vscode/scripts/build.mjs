// Bundles the extension (dist/extension.js) or, with --tests, each test file
// (out/test/*.test.js) with esbuild. The test bundles must not need `vscode`: the
// logic they test is pure, and a stray import fails the run.
import * as esbuild from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';

const tests = process.argv.includes('--tests');
const production = process.argv.includes('--production');

const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning' };

if (tests) {
  rmSync('out/test', { recursive: true, force: true });
  const entryPoints = readdirSync('test')
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => `test/${name}`);
  await esbuild.build({ ...common, entryPoints, outdir: 'out/test', sourcemap: 'inline' });
} else {
  await esbuild.build({
    ...common,
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    external: ['vscode'],
    minify: production,
    sourcemap: !production,
    metafile: false,
  });
}
