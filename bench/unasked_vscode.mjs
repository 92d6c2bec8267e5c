// Benchmark: model requests nobody asked for, per minute of cursor movement, in VS Code.
//
// The real extension (the .vsix `make test-vscode` builds) in a real VS Code
// (code-server) in headless Chromium, through tests/vscode/harness.mjs, against the
// emulator with `--api-key` at a host name sparkls treats as remote (it sends the key):
// a key-backed endpoint. A TypeScript file with a diagnostic from VS Code's own
// TypeScript support on every function; the cursor moves down line by line, a stop
// every --pace-ms of real time, no menu opened: VS Code's lightbulb asks sparkls for
// code actions by itself (`triggerKind` Automatic), and each list holds "Fix with Spark"
// on those lines. Then Ctrl+. once on a diagnostic (a menu the user opened) for
// comparison. Prints figures; asserts nothing.
//
//   make test-vscode   # the .vsix
//   SPARKLS_VSCODE_TOOLS="$(.venv/bin/python scripts/vscode_tools.py)" \
//     .tools/node/bin/node bench/unasked_vscode.mjs [--moves 120] [--pace-ms 500]
import { parseArgs } from 'node:util';

import { REMOTE_HOST, openVSCode, startEmulator } from '../tests/vscode/harness.mjs';

const KEY = 'sk-sparkls-bench-unasked-4f1d9c';
const FUNCTIONS = 8;
const SOURCE = Array.from({ length: FUNCTIONS }, (_, n) =>
  `export function area${n}(radius: number): number {\n  return Math.PI * raduis${n} ** 2;\n}\n\n`).join('');

const { values } = parseArgs({ options: { moves: { type: 'string', default: '120' }, 'pace-ms': { type: 'string', default: '500' } } });
const moves = Number(values.moves);
const pace = Number(values['pace-ms']);

const emulator = await startEmulator(['--api-key', KEY]);
const url = emulator.urlAt(REMOTE_HOST);
const vscode = await openVSCode('bench-unasked', {
  settings: { 'sparkls.fast.baseUrl': url, 'sparkls.deep.baseUrl': url },
  files: { 'shapes.ts': SOURCE },
  env: { OPENAI_API_KEY: KEY },
});
const responses = async () => (await emulator.control('GET', 'stats')).responses;
try {
  if (!vscode.remoteHostAvailable) throw new Error(`no mount namespace to resolve ${REMOTE_HOST}`);
  await vscode.step('open shapes.ts', () => vscode.openFile('shapes.ts'));
  await vscode.step('TypeScript reports every raduis', () => vscode.waitForDiagnostics(FUNCTIONS, { timeout: 90_000 }));
  await vscode.step('status ready', () => vscode.waitForStatus(/fast: .* \(remote\) — ready over websocket/));
  await vscode.goTo(1, 1);
  const before = await responses();
  const started = performance.now();
  for (let i = 0; i < moves; i += 1) {
    if (i % (FUNCTIONS * 4 - 1) === 0) await vscode.goTo(1, 1);
    else await vscode.press('ArrowDown');
    await vscode.page.waitForTimeout(pace); // the cursor rests: the lightbulb asks meanwhile
  }
  await vscode.page.waitForTimeout(2000); // what the last stops started reaches the endpoint
  const seconds = (performance.now() - started) / 1000;
  const unasked = (await responses()) - before;
  console.log(`VS Code (code-server): ${moves} cursor stops in ${seconds.toFixed(0)} s, no menu opened: `
    + `${unasked} model requests, ${(unasked / seconds * 60).toFixed(1)} per minute of cursor movement`);
  await vscode.goTo(2, 21);
  const menuBefore = await responses();
  await vscode.step('Ctrl+. on a diagnostic', async () => {
    try {
      await vscode.openCodeActions(/Fix with Spark/);
    } catch {
      await vscode.press('Escape'); // a menu opened before TypeScript's list was in: once more
      await vscode.openCodeActions(/Fix with Spark/);
    }
  });
  await vscode.page.waitForTimeout(2000);
  console.log(`one menu the user opened (Ctrl+.): ${(await responses()) - menuBefore} model requests (fixes computed ahead)`);
  await vscode.press('Escape');
} finally {
  await vscode.close();
  await emulator.stop();
}
