/**
 * The sparkls process and its LanguageClient: start, restart (one coalesced function),
 * settings in and status out. Commands reach the server through `execute`.
 */
import { execFile } from 'node:child_process';
import * as os from 'node:os';
import * as readline from 'node:readline';
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  RevealOutputChannelOn,
  State,
  TransportKind,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import { Coalescer } from './common/async';
import {
  describeLaunch,
  preflight,
  preflightProblem,
  resolveLaunch,
  startFailureMessage,
  type Launch,
} from './common/launch';
import { classifyStderrLine, type Level, type RedactingLogChannel } from './common/logging';
import { NEXT_EDIT_NOTIFICATION } from './common/nextEdit';
import { errorText, LANGUAGES, STATUS_NOTIFICATION } from './common/protocol';
import {
  initializationOptions,
  SECTION,
  serverSettings,
  userValue,
  type ManifestSettings,
  type ServerSettings,
} from './common/settings';
import { parseStatusNotification } from './common/status';
import { discoverPython, watchPythonInterpreter } from './python';
import { SHOW_LOGS_COMMAND, type StatusItem } from './statusItem';

export const DOCUMENT_SELECTOR = LANGUAGES.map((language) => ({ scheme: 'file', language }));
export const API_KEY_SECRET = 'sparkls.apiKey';
const STOP_TIMEOUT_MS = 2000;
const PREFLIGHT_TIMEOUT_MS = 10_000;

export class ServerManager implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private launch: Launch | undefined;
  private apiKey: string | undefined;
  /** The key the next (or running) server gets: `apiKey` once a restart has read it. */
  private wantedKey: string | undefined;
  /** Every key used this session: an old process may still log for a moment. */
  private readonly usedKeys = new Set<string>();
  private interpreterWatch: vscode.Disposable | undefined;
  private readonly restarts = new Coalescer(() => this.replaceClient());

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: RedactingLogChannel,
    private readonly status: StatusItem,
    private readonly settings: ManifestSettings,
  ) {}

  /** What the log must never show. */
  secrets(): string[] {
    return [...this.usedKeys];
  }

  /** THE way to (re)start the server: concurrent requests share one restart. */
  restart(reason: string): Promise<void> {
    this.log.info(`restart requested: ${reason}`);
    return this.restarts.request();
  }

  /** The running client, starting the server if it is not running. */
  async running(): Promise<LanguageClient> {
    await this.restarts.idle();
    if (this.client?.isRunning() !== true) {
      await this.restart('a command needs the server');
    }
    if (this.client?.isRunning() !== true) {
      throw new Error('the sparkls server is not running (see Spark: Show Logs)');
    }
    return this.client;
  }

  /** Told each `sparkls/nextEdit` notification of the running server. */
  onNextEdit: ((params: unknown) => void) | undefined;

  /** `workspace/executeCommand` with one argument; the server's error, if any, is thrown. */
  async execute(command: string, argument: unknown): Promise<unknown> {
    const client = await this.running();
    return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [argument] });
  }

  /** The server's settings as the user set them (contributed defaults left out). */
  serverSettings(): ServerSettings {
    const config = vscode.workspace.getConfiguration(SECTION, vscode.workspace.workspaceFolders?.[0]?.uri);
    return serverSettings(this.settings.serverKeys, (key) => userValue(this.settings, key, config.inspect(key)));
  }

  /** Send changed settings to the running server (no restart: it reconnects what changed). */
  pushSettings(): void {
    const client = this.client;
    if (client?.isRunning()) {
      client
        .sendNotification(DidChangeConfigurationNotification.type, { settings: { [SECTION]: this.serverSettings() } })
        .catch((error: unknown) => this.log.warn(`sending settings failed: ${errorText(error)}`));
    }
  }

  /**
   * Restart when the stored key differs from the one the server has or is about to
   * get. Set API Key calls this and the secret store's change event does too: the
   * second call finds the key already on its way and restarts nothing.
   */
  async apiKeyChanged(): Promise<void> {
    const key = (await this.context.secrets.get(API_KEY_SECRET)) || undefined;
    if (key !== this.wantedKey) {
      this.wantedKey = key;
      await this.restart('the API key changed');
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client !== undefined) {
      try {
        await client.dispose(STOP_TIMEOUT_MS);
      } catch (error) {
        this.log.warn(`stopping the server: ${errorText(error)}`);
      }
    }
  }

  dispose(): void {
    this.interpreterWatch?.dispose();
    void this.stop();
  }

  private async resolveLaunch(): Promise<Launch> {
    const config = vscode.workspace.getConfiguration(SECTION, vscode.workspace.workspaceFolders?.[0]?.uri);
    // Which program runs is the user's to say: never a workspace's value (settings.ts).
    const text = (key: string) => {
      const value = userValue(this.settings, key, config.inspect(key));
      return typeof value === 'string' ? value : '';
    };
    const path = text('server.path');
    const python = text('server.python');
    const folder = vscode.workspace.workspaceFolders?.[0];
    const discoveredPython =
      path.trim() || python.trim() ? undefined : await discoverPython(folder?.uri, this.log);
    if (discoveredPython !== undefined && this.interpreterWatch === undefined) {
      this.interpreterWatch = watchPythonInterpreter(() => {
        if (this.launch?.source === 'python extension') {
          void this.restart('the Python interpreter changed');
        }
      });
    }
    return resolveLaunch({
      path,
      python,
      discoveredPython,
      logLevel: config.get<string>('server.logLevel'),
      platform: process.platform,
      home: os.homedir(),
      workspaceFolder: folder?.uri.fsPath,
    });
  }

  private async replaceClient(): Promise<void> {
    await this.stop();
    this.status.setServer('starting');
    const launch = await this.resolveLaunch();
    this.launch = launch;
    const check = preflight(launch);
    const problem = check && preflightProblem(await run(check.command, check.args));
    if (problem !== undefined) {
      this.startFailed(launch, problem);
      return;
    }
    this.apiKey = (await this.context.secrets.get(API_KEY_SECRET)) || undefined;
    this.wantedKey = this.apiKey;
    if (this.apiKey !== undefined) {
      this.usedKeys.add(this.apiKey);
    }
    const client = this.createClient(launch, initializationOptions(this.serverSettings(), this.apiKey));
    this.client = client;
    this.log.info(`starting ${describeLaunch(launch)}${this.apiKey ? ' with the stored API key' : ''}`);
    try {
      await client.start();
      this.log.info('sparkls is running');
    } catch (error) {
      if (this.client === client) {
        this.client = undefined;
        this.startFailed(launch, errorText(error));
        try {
          await client.dispose(STOP_TIMEOUT_MS);
        } catch {
          // it never ran
        }
      }
    }
  }

  private startFailed(launch: Launch, reason: string): void {
    const message = startFailureMessage(launch, reason);
    this.log.error(message);
    this.status.setServer('stopped', message);
    void vscode.window.showErrorMessage(message, 'Open Settings', 'Show Logs').then((choice) => {
      if (choice === 'Open Settings') {
        void vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.server`);
      } else if (choice === 'Show Logs') {
        void vscode.commands.executeCommand(SHOW_LOGS_COMMAND);
      }
    });
  }

  private createClient(launch: Launch, options: ServerSettings): LanguageClient {
    const serverOptions: ServerOptions = {
      command: launch.command,
      args: launch.args,
      transport: TransportKind.stdio,
      options: { cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: DOCUMENT_SELECTOR,
      initializationOptions: options,
      outputChannel: this.log,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      stdioOptions: {
        stdout: (input, channel) => lines(input, (line) => channel.info(line)),
        stderr: (input, channel) => {
          let level: Level | undefined;
          lines(input, (line) => {
            const record = classifyStderrLine(line, level);
            level = record.level;
            channel[level](record.text);
          });
        },
      },
      middleware: {
        workspace: {
          configuration: async (params, token, next) => {
            const answers = await next(params, token);
            if (!Array.isArray(answers)) {
              return answers;
            }
            // Our section without the client's own keys and defaults (see settings.ts).
            return params.items.map((item, i) => (item.section === SECTION ? this.serverSettings() : answers[i]));
          },
        },
        provideInlineCompletionItems: (document, position, context, token, next) =>
          vscode.workspace.getConfiguration(SECTION, document).get<boolean>('inlineCompletion.enabled', true)
            ? next(document, position, context, token)
            : undefined,
      },
    };
    const client = new LanguageClient(SECTION, 'Spark (sparkls)', serverOptions, clientOptions);
    client.onNotification(NEXT_EDIT_NOTIFICATION, (params: unknown) => {
      if (this.client === client) {
        this.onNextEdit?.(params);
      }
    });
    client.onNotification(STATUS_NOTIFICATION, (params: unknown) => {
      if (this.client === client) {
        this.status.updateTiers(parseStatusNotification(params));
      }
    });
    client.onDidChangeState(({ newState }) => {
      if (this.client !== client) {
        return; // an old client going away
      }
      if (newState === State.Running) {
        this.status.setServer('running');
      } else if (newState === State.Starting) {
        this.status.setServer('starting');
      } else {
        this.status.setServer('stopped', 'the server exited (see Spark: Show Logs)');
      }
    });
    return client;
  }
}

/** Run a short check; its exit code, or the spawn error's code (ENOENT...). */
function run(command: string, args: string[]): Promise<{ exitCode?: number | null; errorCode?: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: PREFLIGHT_TIMEOUT_MS, windowsHide: true }, (error) => {
      if (error === null) {
        resolve({ exitCode: 0 });
      } else if (typeof error.code === 'string') {
        resolve({ errorCode: error.code });
      } else {
        resolve({ exitCode: error.code ?? null });
      }
    });
  });
}

function lines(input: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  readline.createInterface({ input, crlfDelay: Infinity, terminal: false, historySize: 0 }).on('line', onLine);
}
