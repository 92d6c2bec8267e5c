// A multi-file task from its input box: the refactor preview, two files changed as one
// edit, and one undo back.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { openVSCode, startEmulator } from './harness.mjs';

const SHAPES = 'def area(r):\n    return 3.14159 * r * r\n';
const REPORT = "from shapes import area\n\n\ndef report(r):\n    return f'{area(r):.2f}'\n";
const OTHER = 'def other():\n    return 1\n';

let emulator;
let vscode;

before(async () => {
  emulator = await startEmulator();
  vscode = await openVSCode('task', {
    settings: { 'sparkls.localBaseUrl': emulator.url },
    files: { 'shapes.py': SHAPES, 'report.py': REPORT, 'other.py': OTHER },
  });
});

after(async () => {
  await vscode?.close();
  await emulator?.stop();
});

test('a multi-file task changes two files as one undoable edit', async () => {
  await vscode.step('open shapes.py', () => vscode.openFile('shapes.py'));
  await vscode.step('status ready', () => vscode.waitForStatus(/fast: .* — ready over websocket/));
  await vscode.step('palette: Spark: Multi-file Task', () => vscode.command('Spark: Multi-file Task'));
  await vscode.step('instruction', () =>
    vscode.answerInputBox('Rename area to circle_area everywhere: REPLACE area WITH circle_area'));
  const files = await vscode.step('refactor preview lists both files', () => vscode.refactorPreview(['shapes.py', 'report.py']));
  assert.ok(!files.some((f) => f.includes('other.py')), `other.py in the preview: ${JSON.stringify(files)}`);
  await vscode.step('tick both files', () => vscode.tickRefactorPreview(['shapes.py', 'report.py']));
  await vscode.step('apply', () => vscode.applyRefactorPreview());
  await vscode.step('both files edited', () => vscode.waitForDirty(['shapes.py', 'report.py']));
  await vscode.step('save all', () => vscode.saveAll());
  await vscode.step('both files changed', async () => {
    await vscode.waitForFile('shapes.py', (t) => t === SHAPES.replaceAll('area', 'circle_area'), 'was renamed');
    await vscode.waitForFile('report.py', (t) => t === REPORT.replaceAll('area', 'circle_area'), 'was renamed');
  });
  assert.equal(vscode.read('other.py'), OTHER);

  await vscode.step('focus shapes.py', () => vscode.openFile('shapes.py'));
  await vscode.step('Ctrl+Z', () => vscode.press('Control+Z'));
  // VS Code undoes a workspace edit in every file it touched (asking first, with a
  // dialog, when it cannot be sure the user means all of them).
  await vscode.step('undone in both files', async () => {
    const dialog = vscode.page.locator('.monaco-dialog-box');
    await vscode.waitFor(async () => (await dialog.count()) > 0 || (await vscode.page.locator('.tabs-container .tab.dirty').count()) === 2,
      'a dialog, or both files changed back');
    if ((await dialog.count()) > 0) await vscode.answerDialog(/Undo in 2 Files/);
    await vscode.waitForDirty(['shapes.py', 'report.py']);
  });
  await vscode.step('save all', () => vscode.saveAll());
  await vscode.step('both files back', async () => {
    await vscode.waitForFile('shapes.py', (t) => t === SHAPES, 'came back');
    await vscode.waitForFile('report.py', (t) => t === REPORT, 'came back');
  });
});
