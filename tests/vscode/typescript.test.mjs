// In a .ts file: a quick fix for a diagnostic from VS Code's own TypeScript support, and
// inline completion ghost text accepted with Tab.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { openVSCode, startEmulator } from './harness.mjs';

const SHAPES = `export function area(radius: number): number {
  return Math.PI * raduis ** 2;
}

export function double(x: number): number {
  return x * 2;
}
`;

const CALC = `export function add(a: number, b: number): number {
  // COMPLETE "a + b;"

}
`;

let emulator;
let vscode;

before(async () => {
  emulator = await startEmulator();
  vscode = await openVSCode('typescript', {
    settings: { 'sparkls.localBaseUrl': emulator.url },
    files: { 'shapes.ts': SHAPES, 'calc.ts': CALC },
  });
});

after(async () => {
  await vscode?.close();
  await emulator?.stop();
});

test('a quick fix "Fix with Spark" fixes a TypeScript diagnostic', async () => {
  await vscode.step('open shapes.ts', () => vscode.openFile('shapes.ts'));
  await vscode.step('TypeScript reports raduis', () => vscode.waitForDiagnostics(1, { timeout: 90_000 }));
  await vscode.step('status ready', () => vscode.waitForStatus(/fast: .* — ready over websocket/));
  await vscode.step('cursor on raduis', () => vscode.goTo(2, 21));
  const titles = await vscode.step('Ctrl+. lists the fix', () => vscode.openCodeActions(/Fix with Spark/));
  assert.ok(
    titles.some((t) => t.startsWith("Fix with Spark: Cannot find name 'raduis'. Did you mean 'radius'?")),
    `menu: ${JSON.stringify(titles)}`,
  );
  await vscode.step('pick the fix', () => vscode.pickCodeAction(/^Fix with Spark/));
  await vscode.step('wait for the edit', () => vscode.waitForEditorText((t) => t.includes('Math.PI * radius')));
  await vscode.step('save', () => vscode.save());
  assert.equal(vscode.read('shapes.ts'), SHAPES.replace('raduis', 'radius'));
  await vscode.step('TypeScript reports nothing', () => vscode.waitForDiagnostics(0));
});

test('inline completion shows ghost text while typing and Tab accepts it', async () => {
  await vscode.step('open calc.ts', () => vscode.openFile('calc.ts'));
  await vscode.step('go to the empty line', () => vscode.goTo(3, 1));
  await vscode.step('type', () => vscode.page.keyboard.type('  return ', { delay: 30 }));
  const ghost = await vscode.step('ghost text', () => vscode.waitForGhostText());
  assert.equal(ghost, 'a + b;');
  await vscode.step('Tab', () => vscode.press('Tab'));
  await vscode.step('accepted', () => vscode.waitForEditorText((t) => t.includes('return a + b;')));
  await vscode.step('save', () => vscode.save());
  assert.equal(vscode.read('calc.ts'), CALC.replace('\n\n}', '\n  return a + b;\n}'));
});
