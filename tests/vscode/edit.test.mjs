// The status item, Edit Selection (palette and Ctrl+I), Refine Last Edit and Restart Server in a real VS Code.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { openVSCode, startEmulator } from './harness.mjs';

const SHAPES = `import math


def area(raduis):
    """Area of a circle."""
    return math.pi * raduis ** 2


def perimeter(raduis):
    return 2 * math.pi * raduis


def label(name):
    return "😀 名前: " + nme
`;

let emulator;
let vscode;

before(async () => {
  emulator = await startEmulator();
  // A far service takes a while to answer the WebSocket upgrade; over loopback the
  // warming state would last a few milliseconds, too short to be drawn at all.
  await emulator.control('POST', 'handshake', { ms: 1000 });
  vscode = await openVSCode('edit', {
    settings: { 'sparkls.localBaseUrl': emulator.url },
    files: { 'shapes.py': SHAPES },
  });
});

after(async () => {
  await vscode?.close();
  await emulator?.stop();
});

test('the status item goes from warming to ready', async () => {
  await vscode.step('open shapes.py', () => vscode.openFile('shapes.py'));
  await vscode.step('status ready', () => vscode.waitForStatus(/^Spark \(local\)$/));
  const history = await vscode.statusHistory();
  const warming = history.indexOf('Spark (local): warming');
  assert.ok(warming >= 0, `never showed warming: ${JSON.stringify(history)}`);
  assert.ok(history.indexOf('Spark (local)', warming) > warming, `warming was not followed by ready: ${JSON.stringify(history)}`);
  const tooltip = await vscode.step('hover the status item', () => vscode.statusTooltip());
  assert.match(tooltip, /fast: .* \(local\) — ready over websocket/);
  // A healthy start writes nothing to the server's stderr, which the extension shows in
  // the Spark output channel at the level each line names (warning or error).
  assert.doesNotMatch(vscode.sparkLog(), /\[(warning|error)\]/i);
  await emulator.control('POST', 'handshake', { ms: 0 });
});

test('Edit Selection from the command palette changes exactly the selected function', async () => {
  await vscode.step('select area()', () => vscode.selectLines(4, 6));
  await vscode.step('palette: Spark: Edit Selection', () => vscode.command('Spark: Edit Selection'));
  await vscode.step('instruction', () => vscode.answerInputBox('Fix the typo: REPLACE raduis WITH radius'));
  await vscode.step('wait for the edit', () => vscode.waitForEditorText((t) => t.includes('def area(radius)')));
  await vscode.step('save', () => vscode.save());
  const text = vscode.read('shapes.py');
  // area() changed; perimeter(), with the same typo, is outside the selection.
  assert.equal(text, SHAPES.replace('def area(raduis)', 'def area(radius)').replace('math.pi * raduis ** 2', 'math.pi * radius ** 2'));
});

test('Edit Selection with Ctrl+I changes exactly the selected function', async () => {
  const before = vscode.read('shapes.py');
  await vscode.step('select label()', () => vscode.selectLines(13, 14));
  await vscode.step('Ctrl+I', () => vscode.press('Control+I'));
  await vscode.step('instruction', () =>
    vscode.answerInputBox('REPLACE nme WITH name.title()', { promptIncludes: 'What should Spark do?' }));
  await vscode.step('wait for the edit', () => vscode.waitForEditorText((t) => t.includes('name.title()')));
  await vscode.step('save', () => vscode.save());
  const text = vscode.read('shapes.py');
  assert.equal(text, before.replace('+ nme', '+ name.title()'));
});

test('Refine Last Edit revises the last edit, and one undo takes the refine back', async () => {
  const before = vscode.read('shapes.py');
  await vscode.step('palette: Spark: Refine Last Edit', () => vscode.command('Spark: Refine Last Edit'));
  await vscode.step('instruction', () =>
    vscode.answerInputBox('REPLACE name.title() WITH name.upper()', { promptIncludes: 'What should Spark do?' }));
  await vscode.step('wait for the refine', () => vscode.waitForEditorText((t) => t.includes('name.upper()')));
  await vscode.step('save', () => vscode.save());
  assert.equal(vscode.read('shapes.py'), before.replace('+ name.title()', '+ name.upper()'));
  await vscode.step('Ctrl+Z', () => vscode.press('Control+Z'));
  await vscode.step('the refine undone', () => vscode.waitForEditorText((t) => t.includes('+ name.title()')));
  await vscode.step('save', () => vscode.save());
  assert.equal(vscode.read('shapes.py'), before);
});

test('Restart Server replaces the server process and edits work after it', async () => {
  const before = vscode.read('shapes.py');
  const [old] = vscode.sparklsServers();
  assert.ok(old, 'no sparkls server running under code-server');
  await vscode.step('palette: Spark: Restart Server', () => vscode.command('Spark: Restart Server'));
  await vscode.step('a new server', () => vscode.waitFor(() => {
    const now = vscode.sparklsServers();
    return now.length === 1 && now[0] !== old;
  }, 'the old server gone and one new one running'));
  await vscode.step('status ready again', () => vscode.waitForStatus(/fast: .* — ready over websocket/));
  assert.match(vscode.sparkLog(), /restart requested: Spark: Restart Server/);
  await vscode.step('select perimeter()', () => vscode.selectLines(9, 10));
  await vscode.step('palette: Spark: Edit Selection', () => vscode.command('Spark: Edit Selection'));
  await vscode.step('instruction', () => vscode.answerInputBox('REPLACE raduis WITH radius'));
  await vscode.step('wait for the edit', () => vscode.waitForEditorText((t) => !t.includes('raduis')));
  await vscode.step('save', () => vscode.save());
  assert.equal(vscode.read('shapes.py'), before.replaceAll('raduis', 'radius'));
  assert.doesNotMatch(vscode.sparkLog(), /\[error\]/i);
});
