/**
 * Entry point: wires the log, the status item, the server manager and the commands.
 * Activation (on a supported language or a Spark command) does no waiting: the server
 * starts in the background.
 */
import * as vscode from 'vscode';
import { API_KEY_SECRET, ServerManager } from './client';
import { registerCommands } from './commands';
import { RedactingLogChannel } from './common/logging';
import { configurationChange, manifestSettings } from './common/settings';
import { GO_TO_NEXT_EDIT_COMMAND, NextEditItem } from './nextEditItem';
import { StatusItem } from './statusItem';

let manager: ServerManager | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const channel = vscode.window.createOutputChannel('Spark', { log: true });
  const log = new RedactingLogChannel(channel, () => manager?.secrets() ?? []);
  const status = new StatusItem();
  const settings = manifestSettings(context.extension.packageJSON);
  const server = new ServerManager(context, log, status, settings);
  manager = server;
  registerCommands(context, server, log, status);
  const nextEdits = new NextEditItem(server);
  server.onNextEdit = (params) => nextEdits.update(params);
  context.subscriptions.push(
    nextEdits,
    vscode.commands.registerCommand(GO_TO_NEXT_EDIT_COMMAND, () =>
      nextEdits.goTo().catch((error: unknown) => log.error(`${GO_TO_NEXT_EDIT_COMMAND}: ${String(error)}`)),
    ),
    channel,
    status,
    server,
    vscode.workspace.onDidChangeConfiguration((event) => {
      const action = configurationChange((section) => event.affectsConfiguration(section), settings.serverKeys);
      if (action === 'restart') {
        void server.restart('the server settings changed');
      } else if (action === 'push') {
        server.pushSettings();
      }
    }),
    context.secrets.onDidChange((event) => {
      if (event.key === API_KEY_SECRET) {
        void server.apiKeyChanged();
      }
    }),
  );
  void server.restart('activation');
}

export async function deactivate(): Promise<void> {
  await manager?.stop();
  manager = undefined;
}
