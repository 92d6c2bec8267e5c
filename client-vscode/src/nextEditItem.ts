/**
 * Next-edit suggestions in VS Code: a status-bar item names the one on offer for the
 * active editor ("Spark: next edit at line N"); "Spark: Go to Next Edit" reveals it,
 * selects the text it replaces, shows the new text after it, and asks (a modal) to accept it
 * (`sparkls.acceptNextEdit`: the server applies it as a versioned edit). The same
 * suggestion is a code action and, with the cursor on its lines, ghost text.
 */
import * as vscode from 'vscode';
import type { ServerManager } from './client';
import { ACCEPT_NEXT_EDIT_COMMAND, NextEdits, previewText, type NextEditOffer } from './common/nextEdit';

export const GO_TO_NEXT_EDIT_COMMAND = 'spark.goToNextEdit';

export class NextEditItem implements vscode.Disposable {
  private readonly offers = new NextEdits();
  private readonly item = vscode.window.createStatusBarItem('sparkls.nextEdit', vscode.StatusBarAlignment.Right, 99);
  private readonly preview = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor('diffEditor.removedTextBackground'),
    after: { color: new vscode.ThemeColor('editorGhostText.foreground'), margin: '0 0 0 1em' },
  });
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly manager: ServerManager) {
    this.item.name = 'Spark next edit';
    this.item.command = GO_TO_NEXT_EDIT_COMMAND;
    this.subscriptions = [vscode.window.onDidChangeActiveTextEditor(() => this.render())];
  }

  /** A `sparkls/nextEdit` notification. */
  update(params: unknown): void {
    if (this.offers.update(params)) {
      this.render();
    }
  }

  private offerFor(editor: vscode.TextEditor | undefined): NextEditOffer | undefined {
    return editor === undefined ? undefined : this.offers.get(editor.document.uri.toString());
  }

  private render(): void {
    const offer = this.offerFor(vscode.window.activeTextEditor);
    if (offer === undefined) {
      this.item.hide();
      vscode.window.activeTextEditor?.setDecorations(this.preview, []);
      return;
    }
    this.item.text = `$(sparkle) ${offer.title.replace(/^Spark: /, '')}`;
    this.item.tooltip = `${offer.title} (${offer.reason}): click to see it`;
    this.item.show();
  }

  /** Reveal the suggestion, preview it, and ask whether to take it. */
  async goTo(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    const offer = this.offerFor(editor);
    if (editor === undefined || offer === undefined) {
      void vscode.window.showInformationMessage('Spark: no next edit on offer here (typing elsewhere drops it).');
      return;
    }
    const { start, end } = offer.range;
    const range = new vscode.Range(start.line, start.character, end.line, end.character);
    editor.selection = new vscode.Selection(range.start, range.end);
    editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    editor.setDecorations(this.preview, [{ range, renderOptions: { after: { contentText: previewText(offer) } } }]);
    // Modal: the selection and the preview stay in view behind it until the user answers.
    const choice = await vscode.window.showInformationMessage(
      offer.title,
      { modal: true, detail: `${JSON.stringify(offer.oldText)} → ${JSON.stringify(offer.newText)} (${offer.reason})` },
      'Accept',
    );
    editor.setDecorations(this.preview, []);
    if (choice === 'Accept') {
      // A refusal (the document moved on) is shown by the server itself.
      await this.manager.execute(ACCEPT_NEXT_EDIT_COMMAND, { uri: offer.uri });
    }
  }

  dispose(): void {
    this.item.dispose();
    this.preview.dispose();
    this.subscriptions.forEach((s) => s.dispose());
  }
}
