// A real VS Code (code-server) in headless Chromium, the sparkls extension installed
// from the .vsix, the real server, and the emulator: what each tests/vscode/ test drives.
//
// Everything a test does goes through the UI a user sees: the command palette, the
// keyboard, input boxes, the status bar, the lightbulb menu. Files are read back from
// disk. A failed step saves a screenshot and the Spark output channel (what "Spark:
// Show Logs" shows) under the artifacts folder and says which step failed.

import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { ARTIFACTS, VSCode } from './workbench.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const VENV_BIN = path.join(ROOT, '.venv', 'bin');
const SPARKLS = path.join(VENV_BIN, 'sparkls');
const EXTENSION = JSON.parse(fs.readFileSync(path.join(ROOT, 'client-vscode', 'package.json'), 'utf8'));
// `make test-vscode` (npm test in client-vscode/) packages it.
const VSIX = path.join(ROOT, 'client-vscode', `${EXTENSION.name}-${EXTENSION.version}.vsix`);
// A host name that resolves to this machine but is not a loopback literal, so sparkls
// treats a tier there as remote (it sends the key): code-server and its children run
// in a mount namespace whose /etc/hosts maps it to 127.0.0.1 (see `hostsNamespace`).
export const REMOTE_HOST = 'api.sparkls.test';

let toolsCache;
/** The paths scripts/vscode_tools.py prints (it installs what is missing, once). */
export function tools() {
  if (toolsCache) return toolsCache;
  if (process.env.SPARKLS_VSCODE_TOOLS) {
    toolsCache = JSON.parse(process.env.SPARKLS_VSCODE_TOOLS); // already known (the Makefile's run)
    return toolsCache;
  }
  const python = path.join(VENV_BIN, 'python');
  const done = spawnSync(python, [path.join(ROOT, 'scripts', 'vscode_tools.py')], { encoding: 'utf8' });
  if (done.status !== 0) {
    throw new Error(`scripts/vscode_tools.py failed (exit ${done.status}):\n${done.stderr}`);
  }
  toolsCache = JSON.parse(done.stdout);
  return toolsCache;
}

let playwright;
async function chromiumDriver() {
  playwright ??= await import(pathToFileURL(path.join(tools().playwright_core, 'index.mjs')).href);
  return playwright.chromium;
}

/** A temporary folder removed when the process exits. */
export function tempDir(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// ---------------------------------------------------------------------------------
// The emulator

/** `sparkls emulate --port 0 [...args]`; resolves once it prints its address. */
export async function startEmulator(args = [], { host = '127.0.0.1' } = {}) {
  const proc = spawn(SPARKLS, ['emulate', '--port', '0', '--host', host, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: withoutKey(process.env),
  });
  let output = '';
  const url = await new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+\/v1)/.exec(output);
      if (match) resolve(match[1]);
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`sparkls emulate exited (${code}) before listening:\n${output}`)));
  });
  const port = new URL(url).port;
  return {
    url,
    port,
    /** The same emulator under another host name (e.g. REMOTE_HOST). */
    urlAt: (name) => `http://${name}:${port}/v1`,
    async control(method, name, body) {
      const reply = await fetch(`${url.replace(/\/v1$/, '')}/_emulator/${name}`, {
        method,
        headers: body ? { 'content-type': 'application/json' } : undefined,
        body: body ? JSON.stringify(body) : undefined,
      });
      return reply.json();
    },
    /** The request texts the emulator received, most recent last. */
    prompts() {
      return this.control('GET', 'prompts').then((r) => r.prompts);
    },
    async stop() {
      proc.kill('SIGTERM');
      if (proc.exitCode === null) await once(proc, 'exit');
    },
  };
}

function withoutKey(env) {
  const copy = { ...env };
  delete copy.OPENAI_API_KEY;
  return copy;
}

// ---------------------------------------------------------------------------------
// code-server in a namespace of its own

/**
 * The argv prefix that runs a command with REMOTE_HOST resolving to 127.0.0.1: a mount
 * namespace (root, or unprivileged user namespaces) whose /etc/hosts is a copy with
 * that line added. Nothing outside that process tree sees it.
 */
function hostsNamespace(dir) {
  const hosts = path.join(dir, 'hosts');
  fs.writeFileSync(hosts, `127.0.0.1 ${REMOTE_HOST}\n${fs.readFileSync('/etc/hosts', 'utf8')}`);
  const script = `mount --bind "$0" /etc/hosts && exec "$@"`;
  const asRoot = process.getuid?.() === 0;
  const argv = asRoot ? ['unshare', '-m', 'sh', '-c', script, hosts] : ['unshare', '-rm', 'sh', '-c', script, hosts];
  const probe = spawnSync(argv[0], [...argv.slice(1), 'getent', 'hosts', REMOTE_HOST], { encoding: 'utf8' });
  if (probe.status !== 0 || !probe.stdout.includes('127.0.0.1')) {
    return null;
  }
  return argv;
}

/**
 * Start code-server on a workspace with the .vsix installed and `settings` as the user
 * settings; open it in headless Chromium. `files` ({relative path: text}) are written
 * into the workspace first. `env` is added to code-server's environment (the extension
 * host, and so the sparkls server, inherit it).
 */
export async function openVSCode(name, { settings = {}, files = {}, env = {} } = {}) {
  const t = tools();
  fs.rmSync(path.join(ARTIFACTS, name), { recursive: true, force: true }); // a previous run's
  const dir = tempDir(`sparkls-vscode-${name}-`);
  const workspace = path.join(dir, 'workspace');
  const userData = path.join(dir, 'user-data');
  const extensions = path.join(dir, 'extensions');
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(workspace, rel)), { recursive: true });
    fs.writeFileSync(path.join(workspace, rel), text);
  }
  fs.mkdirSync(workspace, { recursive: true });
  fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
  const userSettings = {
    'sparkls.server.path': SPARKLS,
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'chat.disableAIFeatures': true,
    'security.workspace.trust.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.ignoreRecommendations': true,
    'update.mode': 'none',
    'git.enabled': false,
    'editor.accessibilitySupport': 'off',
    'files.autoSave': 'off',
    ...settings,
  };
  fs.writeFileSync(path.join(userData, 'User', 'settings.json'), JSON.stringify(userSettings, null, 2));
  const codeEnv = {
    ...withoutKey(process.env),
    PATH: `${path.dirname(t.node)}${path.delimiter}${process.env.PATH}`,
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    XDG_DATA_HOME: path.join(dir, 'data'),
    XDG_CACHE_HOME: path.join(dir, 'cache'),
    ...env,
  };
  const common = ['--user-data-dir', userData, '--extensions-dir', extensions];
  const install = spawnSync(t.code_server, [...common, '--install-extension', VSIX], { env: codeEnv, encoding: 'utf8' });
  if (install.status !== 0 || !/successfully installed/.test(install.stdout)) {
    throw new Error(`installing ${VSIX} into code-server failed:\n${install.stdout}\n${install.stderr}`);
  }
  const serverArgs = [
    t.code_server, '--auth', 'none', '--bind-addr', '127.0.0.1:0', ...common,
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override',
    workspace,
  ];
  const namespace = hostsNamespace(dir);
  const argv = namespace ? [...namespace, ...serverArgs] : serverArgs;
  // Its own process group: each browser connection starts an extension host (and a
  // sparkls server) that outlives the tab; `close` ends the whole group.
  const server = spawn(argv[0], argv.slice(1), { env: codeEnv, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let serverLog = '';
  const address = await new Promise((resolve, reject) => {
    const onData = (chunk) => {
      serverLog += chunk;
      const match = /HTTP server listening on (http:\/\/\S+?)\/?\s/.exec(serverLog);
      if (match) resolve(match[1]);
    };
    server.stdout.on('data', onData);
    server.stderr.on('data', onData);
    server.once('exit', (code) => reject(new Error(`code-server exited (${code}):\n${serverLog}`)));
  });
  server.stdout.on('data', (chunk) => { serverLog += chunk; });
  server.stderr.on('data', (chunk) => { serverLog += chunk; });

  const chromium = await chromiumDriver();
  const browser = await chromium.launch({
    executablePath: t.chromium,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-default-apps',
    ],
  });
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  // Every text the status item shows, as it changes (a state can last a few ms).
  await page.addInitScript(() => {
    const seen = [];
    window.__sparkStatus = seen;
    new MutationObserver(() => {
      const item = document.querySelector('.statusbar-item[id^="sparkls.sparkls"]');
      const text = item?.textContent?.trim();
      if (text !== undefined && seen[seen.length - 1] !== text) seen.push(text);
    }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
  });
  await page.goto(`${address}/?folder=${encodeURIComponent(workspace)}`);
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  const vscode = new VSCode({ name, page, browser, server, workspace, userData, dir, remoteHost: namespace !== null });
  vscode.serverLog = () => serverLog;
  return vscode;
}
