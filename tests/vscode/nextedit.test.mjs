// Next-edit suggestions in a real VS Code: rename by typing, then the status item, the preview and the lightbulb.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { openVSCode, startEmulator } from './harness.mjs';

const SHAPES = `import math


def area(raduis):
    """Area of a circle."""
    return math.pi * raduis ** 2


def perimeter(r):
    return 2 * math.pi * r


def report(r):
    return area(r), perimeter(r)
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

test('a renamed function offers its call, in another function, in the lightbulb menu', async () => {
  // A parameter's uses are only in its own function (perimeter's `r` is not area's);
  // a module-level function's are wherever it is called.
  await vscode.step('select the function name', async () => {
    await vscode.goTo(4, 5);
    await vscode.press('Shift+Control+ArrowRight');
  });
  await vscode.step('type the new name', () => vscode.page.keyboard.type('disc_area', { delay: 60 }));
  const item = vscode.page.locator('.statusbar-item[id$="sparkls.nextEdit"]').first();
  await vscode.step('the status item names line 14', () =>
    vscode.waitFor(async () => /next edit at line 14/.test((await item.textContent()) ?? ''), 'the next-edit status item'));
  await vscode.step('open the code actions', () => vscode.openCodeActions(/Spark: next edit at line 14/));
  await vscode.step('pick it', () => vscode.pickCodeAction(/Spark: next edit at line 14/));
  await vscode.step('the call renamed', () => vscode.waitForEditorText((t) => t.includes('return disc_area(r), perimeter(r)')));
  await vscode.step('save', () => vscode.save());
  assert.equal(vscode.read('shapes.py'), SHAPES.replaceAll('raduis', 'radius').replaceAll('area(', 'disc_area('));
});
