// Spark: Set API Key in a real VS Code: a rejected key shows as failing with the reason;
// the key typed into Set API Key goes to VS Code's secret storage and to the server (the
// emulator, which requires it, accepts the requests), is read back from there by a restart,
// and is written to no settings file and no log.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';

import { REMOTE_HOST, openVSCode, startEmulator } from './harness.mjs';

const GOOD_KEY = 'sk-sparkls-test-GOOD-5f2c9a81d7e34b60';
const WRONG_KEY = 'sk-sparkls-test-WRONG-0b7d4e19c2a85f36';
const SHAPES = 'def area(raduis):\n    return 3.14159 * raduis * raduis\n';

let emulator;
let vscode;

before(async () => {
  emulator = await startEmulator(['--api-key', GOOD_KEY]);
  // The tiers at a host name that is not a loopback literal: sparkls treats them as
  // remote, so it sends them the key (a tier on this machine never gets the global key).
  const url = emulator.urlAt(REMOTE_HOST);
  vscode = await openVSCode('key', {
    settings: { 'sparkls.fast.baseUrl': url, 'sparkls.deep.baseUrl': url },
    files: { 'shapes.py': SHAPES },
    env: { OPENAI_API_KEY: WRONG_KEY },
  });
  assert.ok(vscode.remoteHostAvailable, `no mount namespace to resolve ${REMOTE_HOST} (needs root or unprivileged user namespaces)`);
});

after(async () => {
  await vscode?.close();
  await emulator?.stop();
});

/** Every file under `dir` that holds `needle`, as paths relative to `dir`. */
function filesHolding(dir, needle) {
  const found = [];
  const walk = (at) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && fs.readFileSync(full).includes(needle)) found.push(path.relative(dir, full));
    }
  };
  walk(dir);
  return found;
}

test('a rejected key shows the status as failing, with the reason', async () => {
  await vscode.step('open shapes.py', () => vscode.openFile('shapes.py'));
  const status = await vscode.step('status failing', () => vscode.waitForStatus(/^Spark: failing$/));
  assert.match(status.label, /fast: .* at api\.sparkls\.test:\d+ \(remote\) — failing: .*(401|key)/i);
});

test('Set API Key stores the key, the server uses it, and it is in no settings file or log', async () => {
  await vscode.step('palette: Spark: Set API Key', () => vscode.command('Spark: Set API Key'));
  await vscode.step('type the key', () => vscode.answerInputBox(GOOD_KEY, { promptIncludes: 'secret storage' }));
  await vscode.step('status ready', () => vscode.waitForStatus(/fast: .* \(remote\) — ready over websocket/));
  await vscode.step('select area()', () => vscode.selectLines(1, 2));
  await vscode.step('palette: Spark: Edit Selection', () => vscode.command('Spark: Edit Selection'));
  await vscode.step('instruction', () => vscode.answerInputBox('REPLACE raduis WITH radius'));
  await vscode.step('wait for the edit', () => vscode.waitForEditorText((t) => !t.includes('raduis')));
  await vscode.step('save', () => vscode.save());
  assert.equal(vscode.read('shapes.py'), SHAPES.replaceAll('raduis', 'radius'));

  const log = vscode.sparkLog();
  assert.equal(log.match(/restart requested: the API key changed/g)?.length, 1, 'Set API Key restarted the server more than once');
  assert.match(log, /with the stored API key/);
  assert.deepEqual(filesHolding(path.join(vscode.userData, 'User'), GOOD_KEY).filter((f) => f.endsWith('.json')), []);
  assert.deepEqual(filesHolding(path.join(vscode.userData, 'logs'), GOOD_KEY), []);
  assert.ok(!vscode.serverLog().includes(GOOD_KEY), "the key is in code-server's log");
  assert.ok(!vscode.sparkLog().includes(WRONG_KEY), 'the wrong key is in the Spark log');
});

test('Restart Server starts the new server with the key read back from secret storage', async () => {
  const [old] = vscode.sparklsServers();
  const starts = () => vscode.sparkLog().match(/with the stored API key/g)?.length ?? 0;
  const before = starts();
  await vscode.step('palette: Spark: Restart Server', () => vscode.command('Spark: Restart Server'));
  await vscode.step('a new server', () => vscode.waitFor(() => {
    const now = vscode.sparklsServers();
    return now.length === 1 && now[0] !== old;
  }, 'the old server gone and one new one running'));
  await vscode.step('status ready', () => vscode.waitForStatus(/fast: .* \(remote\) — ready over websocket/));
  assert.equal(starts(), before + 1);
  assert.deepEqual(filesHolding(path.join(vscode.userData, 'logs'), GOOD_KEY), []);
});
