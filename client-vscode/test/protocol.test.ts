import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cleanInstruction, contextSummary, errorText, LANGUAGES, reportedFailure, taskArgs } from '../src/common/protocol';
import { readJson } from './helpers';

const sel = { start: { line: 1, character: 0 }, end: { line: 4, character: 2 } };
const caret = { start: { line: 3, character: 5 }, end: { line: 3, character: 5 } };

describe('taskArgs', () => {
  test('the files in view, each once, the active one first, and the selection', () => {
    assert.deepEqual(taskArgs('rename it', ['file:///a.py', 'file:///b.py', 'file:///a.py'], sel), {
      instruction: 'rename it',
      uris: ['file:///a.py', 'file:///b.py'],
      range: sel,
    });
  });

  test('no selection, no range; no files, no uris', () => {
    assert.deepEqual(taskArgs('x', ['file:///a.py'], caret), { instruction: 'x', uris: ['file:///a.py'] });
    assert.deepEqual(taskArgs('x', [], sel), { instruction: 'x' });
  });
});

test('cleanInstruction: blank means cancelled', () => {
  assert.equal(cleanInstruction(undefined), undefined);
  assert.equal(cleanInstruction('   '), undefined);
  assert.equal(cleanInstruction('  add types \n'), 'add types');
});

test('reportedFailure reads the server-side failure result', () => {
  assert.equal(reportedFailure({ applied: false, tier: 'fast', error: { code: 'x', message: 'no key' } }), 'no key');
  assert.equal(reportedFailure({ applied: true }), undefined);
  assert.equal(reportedFailure(null), undefined);
});

test('contextSummary', () => {
  const report = { region: { path: 'app.py', start_line: 3, end_line: 9 }, snippets: [{}, {}], tokens: 420 };
  assert.equal(contextSummary(report), 'context for app.py lines 3-9: 2 snippet(s), about 420 tokens');
  assert.equal(contextSummary({ applied: false }), undefined);
});

test('errorText: Error, ResponseError-like, anything', () => {
  assert.equal(errorText(new Error('boom')), 'boom');
  assert.equal(errorText({ code: -32601, message: 'Command not found: sparkls.task' }), 'Command not found: sparkls.task');
  assert.equal(errorText(42), '42');
});

test("package.json activates on, and binds keys in, exactly the server's languages", () => {
  const manifest = readJson('package.json') as {
    activationEvents: string[];
    contributes: { keybindings: Array<{ when: string }>; menus: Record<string, Array<{ when?: string }>> };
  };
  const activation = manifest.activationEvents.filter((e) => e.startsWith('onLanguage:')).map((e) => e.slice(11));
  assert.deepEqual([...activation].sort(), [...LANGUAGES].sort());
  assert.ok(!manifest.activationEvents.includes('*'));
  const clauses = [
    ...manifest.contributes.keybindings.map((k) => k.when),
    ...Object.values(manifest.contributes.menus).flat().map((m) => m.when ?? ''),
  ].filter((when) => when.includes('editorLangId'));
  assert.ok(clauses.length >= 2);
  for (const when of clauses) {
    const pattern = /editorLangId =~ \/\^\(([^)]*)\)\$\//.exec(when);
    assert.deepEqual(pattern?.[1]?.split('|').sort(), [...LANGUAGES].sort(), when);
  }
});
