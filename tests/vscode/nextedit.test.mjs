// Next-edit suggestions in a real VS Code: rename by typing, then the status item, the preview and the lightbulb.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { openVSCode, startEmulator } from './harness.mjs';

const SHAPES = `import math


def area(raduis):
    """Area of a circle."""
    return math.pi * raduis ** 2


def perimeter(raduis):
    return 2 * math.pi * raduis
`;

let emulator;
let vscode;

before(async () => {
  emulator = await startEmulator();
  vscode = await openVSCode('nextedit', {
    settings: { 'sparkls.localBaseUrl': emulator.url },
    files: { 'shapes.py': SHAPES },
  });
});

after(async () => {
  await vscode?.close();
  await emulator?.stop();
});

test('a typed rename offers its use in the status bar; Go to Next Edit previews and accepts it', async () => {
  await vscode.step('open shapes.py', () => vscode.openFile('shapes.py'));
  await vscode.step('status ready', () => vscode.waitForStatus(/^Spark \(local\)$/));
  await vscode.step('select the parameter', async () => {
    await vscode.goTo(4, 10);
    await vscode.press('Shift+Control+ArrowRight');
  });
  await vscode.step('type the new name', () => vscode.page.keyboard.type('radius', { delay: 60 }));
  const item = vscode.page.locator('.statusbar-item[id$="sparkls.nextEdit"]').first();
  await vscode.step('the status item names line 6', () =>
    vscode.waitFor(async () => /next edit at line 6/.test((await item.textContent()) ?? ''), 'the next-edit status item'));
  await vscode.step('palette: Spark: Go to Next Edit', () => vscode.command('Spark: Go to Next Edit'));
  await vscode.step('accept', () => vscode.answerDialog('Accept'));
  await vscode.step('the use is renamed', () => vscode.waitForEditorText((t) => t.includes('math.pi * radius ** 2')));
});

test('the next one, in another function, is in the lightbulb menu', async () => {
  await vscode.step('open the code actions', () => vscode.openCodeActions(/Spark: next edit at line 9/));
  await vscode.step('pick it', () => vscode.pickCodeAction(/Spark: next edit at line 9/));
  await vscode.step('perimeter renamed', () => vscode.waitForEditorText((t) => t.includes('def perimeter(radius):')));
  await vscode.step('save', () => vscode.save());
  assert.equal(vscode.read('shapes.py'), SHAPES.replaceAll('raduis', 'radius'));
});
