/** The "Spark:" commands: gather input in VS Code, send one server command, report. */
import * as vscode from 'vscode';
import type { ServerManager } from './client';
import { API_KEY_SECRET, DOCUMENT_SELECTOR } from './client';
import type { RedactingLogChannel } from './common/logging';
import {
  cleanInstruction,
  contextSummary,
  EDIT_COMMAND,
  REFINE_COMMAND,
  errorText,
  reportedFailure,
  SHOW_CONTEXT_COMMAND,
  TASK_COMMAND,
  taskArgs,
  type EditArgs,
  type RefineArgs,
  type ShowContextArgs,
} from './common/protocol';
import { parseEditSummary } from './common/status';
import { SHOW_LOGS_COMMAND, type StatusItem } from './statusItem';

const NOT_SUPPORTED = 'Spark: open a Python, JavaScript, TypeScript, Go or Rust file first.';

export function registerCommands(
  context: vscode.ExtensionContext,
  manager: ServerManager,
  log: RedactingLogChannel,
  status: StatusItem,
): void {
  let lastInstruction = '';

  /** The active editor, if sparkls serves its document. */
  function supportedEditor(): vscode.TextEditor | undefined {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined || vscode.languages.match(DOCUMENT_SELECTOR, editor.document) === 0) {
      void vscode.window.showInformationMessage(NOT_SUPPORTED);
      return undefined;
    }
    return editor;
  }

  async function askInstruction(title: string, placeHolder: string): Promise<string | undefined> {
    const typed = await vscode.window.showInputBox({
      title,
      prompt: 'What should Spark do?',
      placeHolder,
      value: lastInstruction,
      valueSelection: [0, lastInstruction.length],
      ignoreFocusOut: true,
    });
    const instruction = cleanInstruction(typed);
    if (instruction !== undefined) {
      lastInstruction = instruction;
    }
    return instruction;
  }

  /** Log a failure the server already showed; return true if there was one. */
  function logged(what: string, result: unknown): boolean {
    const failure = reportedFailure(result);
    if (failure !== undefined) {
      log.warn(`${what} failed: ${failure}`);
    }
    return failure !== undefined;
  }

  async function editSelection(): Promise<void> {
    const editor = supportedEditor();
    if (editor === undefined) {
      return;
    }
    const instruction = await askInstruction('Spark: Edit Selection', 'e.g. handle an empty list; add type hints');
    if (instruction === undefined) {
      return;
    }
    const client = await manager.running();
    const args: EditArgs = {
      uri: client.code2ProtocolConverter.asUri(editor.document.uri),
      range: client.code2ProtocolConverter.asRange(editor.selection),
      instruction,
    };
    reportEdit('edit', await manager.execute(EDIT_COMMAND, args));
  }

  /** Show an edit's summary in the status bar, and log it (or its failure). */
  function reportEdit(what: string, result: unknown): void {
    const summary = parseEditSummary(result);
    if (summary !== undefined) {
      status.setLastEdit(summary);
    }
    if (!logged(what, result) && summary !== undefined) {
      log.info(`${what}: ${summary.applied ? 'applied' : 'no change'}, ${JSON.stringify(summary.timings_ms)}`);
    }
  }

  /** Revise the last Spark edit of the active document (also the code action's command). */
  async function refineLastEdit(): Promise<void> {
    const editor = supportedEditor();
    if (editor === undefined) {
      return;
    }
    const instruction = await askInstruction('Spark: Refine Last Edit', 'e.g. shorter; keep the old name; no comments');
    if (instruction === undefined) {
      return;
    }
    const client = await manager.running();
    const args: RefineArgs = { uri: client.code2ProtocolConverter.asUri(editor.document.uri), instruction };
    reportEdit('refine', await manager.execute(REFINE_COMMAND, args));
  }

  async function multiFileTask(): Promise<void> {
    const instruction = await askInstruction('Spark: Multi-file Task', 'e.g. rename Config to Settings everywhere');
    if (instruction === undefined) {
      return;
    }
    const client = await manager.running();
    const c2p = client.code2ProtocolConverter;
    const active = vscode.window.activeTextEditor;
    const documents = [active, ...vscode.window.visibleTextEditors]
      .filter((e): e is vscode.TextEditor => e !== undefined && e.document.uri.scheme === 'file')
      .map((e) => c2p.asUri(e.document.uri));
    const selection = active?.document.uri.scheme === 'file' ? c2p.asRange(active.selection) : undefined;
    const result = await manager.execute(TASK_COMMAND, taskArgs(instruction, documents, selection));
    if (!logged('task', result)) {
      log.info(`task: ${JSON.stringify(result)}`);
    }
  }

  async function showContext(): Promise<void> {
    const editor = supportedEditor();
    if (editor === undefined) {
      return;
    }
    const client = await manager.running();
    const args: ShowContextArgs = {
      uri: client.code2ProtocolConverter.asUri(editor.document.uri),
      range: client.code2ProtocolConverter.asRange(editor.selection),
    };
    const result = await manager.execute(SHOW_CONTEXT_COMMAND, args);
    if (!logged('show context', result)) {
      log.info(contextSummary(result) ?? 'show context: done');
    }
  }

  async function setApiKey(): Promise<void> {
    const key = await vscode.window.showInputBox({
      title: 'Spark: Set API Key',
      prompt: "Kept in VS Code's secret storage and given to the sparkls server only. Leave empty to remove it.",
      placeHolder: 'sk-…',
      password: true,
      ignoreFocusOut: true,
    });
    if (key === undefined) {
      return;
    }
    const trimmed = key.trim();
    if (trimmed) {
      await context.secrets.store(API_KEY_SECRET, trimmed);
      void vscode.window.showInformationMessage('Spark: API key stored; restarting the server.');
    } else {
      await context.secrets.delete(API_KEY_SECRET);
      void vscode.window.showInformationMessage('Spark: API key removed; the server falls back to `sparkls.apiKeyEnv`.');
    }
    await manager.apiKeyChanged();
  }

  const commands: Record<string, () => Promise<void> | void> = {
    'spark.editSelection': editSelection,
    'spark.multiFileTask': multiFileTask,
    'spark.refineLastEdit': refineLastEdit,
    'spark.showContext': showContext,
    'spark.setApiKey': setApiKey,
    'spark.restartServer': () => manager.restart('Spark: Restart Server'),
    [SHOW_LOGS_COMMAND]: () => log.show(true),
  };
  for (const [id, run] of Object.entries(commands)) {
    context.subscriptions.push(
      vscode.commands.registerCommand(id, async () => {
        try {
          await run();
        } catch (error) {
          const message = errorText(error);
          log.error(`${id}: ${message}`);
          void vscode.window.showErrorMessage(`Spark: ${message}`);
        }
      }),
    );
  }
}
