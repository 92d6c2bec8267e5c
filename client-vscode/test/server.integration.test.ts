/**
 * The extension's protocol layer against the real sparkls and the emulator, without
 * VS Code: the launch command from `resolveLaunch`, `initializationOptions` from
 * `serverSettings` + the stored key, `sparkls/status` through `parseStatusNotification`
 * and `statusView`, and a `sparkls.edit` whose summary `parseEditSummary` reads. The
 * emulator asks for no key and `sparkls.localBaseUrl` points both tiers at it, as
 * `sparkls emulate` tells a user to; the stored key is sent at start-up all the same,
 * and must never reach a log (nor the local endpoint: config.py's rule).
 *
 * Needs the repository's Python environment (`../.venv`, or SPARKLS_PYTHON); skipped
 * when there is none. VS Code itself (the glue in src/*.ts) is not exercised here.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import * as rpc from 'vscode-jsonrpc/node';
import { resolveLaunch } from '../src/common/launch';
import { EDIT_COMMAND } from '../src/common/protocol';
import { initializationOptions, manifestSettings, serverSettings } from '../src/common/settings';
import { mergeTiers, parseEditSummary, parseStatusNotification, statusView, type TierStatus } from '../src/common/status';
import { readJson, ROOT } from './helpers';

const PYTHON = process.env.SPARKLS_PYTHON ?? path.join(ROOT, '..', '.venv', 'bin', 'python');
const KEY = 'sk-integration-test-0123456789';
const WAIT_MS = 30_000;
const SAMPLE = 'import math\n\n\ndef area(radius):\n    return math.pi * raduis ** 2\n';

interface Position {
  line: number;
  character: number;
}
interface TextEdit {
  range: { start: Position; end: Position };
  newText: string;
}

/** Apply LSP edits to ASCII text (the sample has no wide characters). */
function applyEdits(text: string, edits: TextEdit[]): string {
  const lines = text.split('\n');
  const offset = (p: Position) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  // Offsets come from the original lines, so edits are applied from the last one back.
  const sorted = [...edits].sort((a, b) => offset(b.range.start) - offset(a.range.start));
  let out = text;
  for (const e of sorted) {
    out = out.slice(0, offset(e.range.start)) + e.newText + out.slice(offset(e.range.end));
  }
  return out;
}

async function waitFor<T>(probe: () => T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = probe();
    if (value !== undefined) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`gave up waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('against the real server and the emulator', { skip: existsSync(PYTHON) ? false : `no Python environment at ${PYTHON}` }, () => {
  let emulator: ChildProcess;
  let server: ChildProcess;
  let connection: rpc.MessageConnection;
  let workspace: string;
  let tiers: Record<string, TierStatus> = {};
  const messages: Array<{ type: number; message: string }> = [];
  const logs: string[] = [];
  const stderr: string[] = [];
  const configurationAnswers: unknown[] = [];
  let text = SAMPLE;
  let settingsValues: Record<string, unknown> = {};
  const { serverKeys } = manifestSettings(readJson('package.json'));
  const settings = () => serverSettings(serverKeys, (key) => settingsValues[key]);

  before(async () => {
    workspace = mkdtempSync(path.join(os.tmpdir(), 'sparkls-vscode-'));
    const env = { ...process.env };
    delete env.SPARKLS_EMULATOR_API_KEY;
    emulator = spawn(PYTHON, ['-m', 'sparkls', 'emulate', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'], env });
    const url = await new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: emulator.stdout! }).once('line', (line) => {
        const match = /listening on (\S+)/.exec(line);
        if (match) resolve(match[1]!);
        else reject(new Error(`unexpected emulator output: ${line}`));
      });
      emulator.once('exit', (code) => reject(new Error(`the emulator exited (${code})`)));
    });
    settingsValues = { localBaseUrl: url, 'fast.connectTimeout': null }; // null: no limit

    const launch = resolveLaunch({ python: PYTHON, logLevel: 'DEBUG', platform: process.platform, home: os.homedir() });
    server = spawn(launch.command, launch.args, { cwd: workspace, stdio: ['pipe', 'pipe', 'pipe'] });
    readline.createInterface({ input: server.stderr! }).on('line', (line) => stderr.push(line));
    connection = rpc.createMessageConnection(
      new rpc.StreamMessageReader(server.stdout!),
      new rpc.StreamMessageWriter(server.stdin!),
    );
    connection.onNotification('sparkls/status', (params: unknown) => {
      tiers = mergeTiers(tiers, parseStatusNotification(params));
    });
    connection.onNotification('window/showMessage', (params: { type: number; message: string }) => {
      messages.push(params);
    });
    connection.onNotification('window/logMessage', (params: { message: string }) => {
      logs.push(params.message);
    });
    connection.onRequest('workspace/configuration', (params: { items: Array<{ section?: string }> }) => {
      const answer = params.items.map((item) => (item.section === 'sparkls' ? settings() : null));
      configurationAnswers.push(answer);
      return answer;
    });
    connection.onRequest('workspace/applyEdit', (params: { edit: { documentChanges: Array<{ edits: TextEdit[] }> } }) => {
      text = applyEdits(text, params.edit.documentChanges.flatMap((change) => change.edits));
      return { applied: true };
    });
    connection.onRequest('client/registerCapability', () => null);
    connection.onRequest('window/workDoneProgress/create', () => null);
    connection.listen();

    await connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(workspace).href,
      workspaceFolders: [{ uri: pathToFileURL(workspace).href, name: 'ws' }],
      capabilities: {
        workspace: { configuration: true, applyEdit: true, workspaceEdit: { documentChanges: true } },
        window: { workDoneProgress: true, showDocument: { support: false } },
      },
      initializationOptions: initializationOptions(settings(), KEY),
    });
    await connection.sendNotification('initialized', {});
  });

  after(async () => {
    try {
      await connection.sendRequest('shutdown');
      await connection.sendNotification('exit');
    } catch {
      // the server is gone already
    }
    connection?.dispose();
    server?.kill();
    emulator?.kill();
    rmSync(workspace, { recursive: true, force: true });
  });

  test('localBaseUrl: the fast tier warms up on the emulator, and the status item says local', async () => {
    const fast = await waitFor(() => (tiers.fast?.state === 'ready' ? tiers.fast : undefined), 'the fast tier to be ready');
    assert.equal(fast.transport, 'websocket');
    assert.equal(fast.location, 'local');
    assert.equal(tiers.deep?.location, 'local');
    assert.equal(statusView({ server: 'running', tiers }).text, '$(zap) Spark (local)');
  });

  test('the settings as the extension sends them raise no warning', async () => {
    await waitFor(() => configurationAnswers[0], 'the server to pull its configuration');
    settingsValues = { ...settingsValues, 'context.budgetTokens': 500, 'context.maxRegionLines': 200 };
    await connection.sendNotification('workspace/didChangeConfiguration', { settings: { sparkls: settings() } });
    await connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
    await waitFor(() => configurationAnswers[1], 'the server to pull the changed configuration');
    assert.deepEqual(messages.filter((m) => /settings/i.test(m.message)), []);
    assert.deepEqual(configurationAnswers[1], [
      { localBaseUrl: settingsValues.localBaseUrl, fast: { connectTimeout: null }, context: { budgetTokens: 500, maxRegionLines: 200 } },
    ]);
  });

  test('Edit Selection: sparkls.edit applies the edit and returns a summary the status item reads', async () => {
    const uri = pathToFileURL(path.join(workspace, 'shapes.py')).href;
    await connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'python', version: 1, text: SAMPLE },
    });
    const args = {
      uri,
      range: { start: { line: 4, character: 0 }, end: { line: 4, character: 0 } },
      instruction: 'Fix the typo: REPLACE raduis WITH radius',
    };
    const result = await connection.sendRequest('workspace/executeCommand', { command: EDIT_COMMAND, arguments: [args] });
    const summary = parseEditSummary(result);
    assert.equal(summary?.applied, true, JSON.stringify({ result, messages, stderr: stderr.slice(-20) }));
    assert.equal(text, SAMPLE.replace('raduis', 'radius'));
    await waitFor(() => (tiers.fast?.state === 'ready' ? true : undefined), 'the fast tier to be ready');
    const view = statusView({ server: 'running', tiers, lastEdit: summary! });
    const seen = JSON.stringify({ view, tiers, result, messages });
    assert.match(view.text, /^\$\(zap\) Spark \(local\) (<1 ms|\d+ ms|\d+\.\d s)$/, seen);
    assert.match(view.tooltip, /Last edit: .*\(context .*, model .*, edit .*, apply .*\), fast tier over websocket/, seen);
  });

  test('the key never shows in what the server logs (DEBUG)', () => {
    assert.ok(stderr.length > 0);
    for (const line of [...stderr, ...logs]) {
      assert.ok(!line.includes(KEY), `the server logged the key: ${line.slice(0, 200)}`);
    }
  });
});
