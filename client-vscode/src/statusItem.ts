/** The status bar item: holds the snapshot, renders it with `statusView`. */
import * as vscode from 'vscode';
import {
  mergeTiers,
  statusView,
  type EditSummary,
  type ServerState,
  type StatusSnapshot,
  type TierStatus,
} from './common/status';

export const SHOW_LOGS_COMMAND = 'spark.showLogs';

const BACKGROUNDS = {
  normal: undefined,
  warning: new vscode.ThemeColor('statusBarItem.warningBackground'),
  error: new vscode.ThemeColor('statusBarItem.errorBackground'),
} as const;

export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('sparkls.status', vscode.StatusBarAlignment.Right, 100);
  private snapshot: StatusSnapshot = { server: 'starting', tiers: {} };

  constructor() {
    this.item.name = 'Spark';
    this.item.command = SHOW_LOGS_COMMAND;
    this.render();
    this.item.show();
  }

  setServer(server: ServerState, error?: string): void {
    this.snapshot = { ...this.snapshot, server, serverError: error };
    if (server === 'starting') {
      this.snapshot.tiers = {}; // a new process reports its tiers afresh
    }
    this.render();
  }

  updateTiers(update: Record<string, TierStatus>): void {
    this.snapshot = { ...this.snapshot, tiers: mergeTiers(this.snapshot.tiers, update) };
    this.render();
  }

  setLastEdit(edit: EditSummary): void {
    this.snapshot = { ...this.snapshot, lastEdit: edit };
    this.render();
  }

  private render(): void {
    const view = statusView(this.snapshot);
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.backgroundColor = BACKGROUNDS[view.severity];
  }

  dispose(): void {
    this.item.dispose();
  }
}
