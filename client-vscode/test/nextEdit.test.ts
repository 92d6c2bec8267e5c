import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { NextEdits, parseNextEdit, previewText } from '../src/common/nextEdit';

const offer = {
  uri: 'file:///w/a.py',
  version: 9,
  line: 5,
  title: 'Spark: next edit at line 6',
  reason: 'use of raduis (now radius)',
  range: { start: { line: 5, character: 30 }, end: { line: 5, character: 36 } },
  oldText: 'raduis',
  newText: 'radius',
};

describe('next edits', () => {
  test('an offer is kept until it is withdrawn', () => {
    const edits = new NextEdits();
    assert.equal(edits.update({ uri: offer.uri, suggestion: offer }), true);
    assert.equal(edits.get(offer.uri)?.line, 5);
    assert.equal(edits.update({ uri: offer.uri, suggestion: null }), true);
    assert.equal(edits.get(offer.uri), undefined);
  });

  test('a malformed notification changes nothing', () => {
    const edits = new NextEdits();
    edits.update({ uri: offer.uri, suggestion: offer });
    assert.equal(edits.update({ uri: offer.uri, suggestion: { ...offer, range: null } }), false);
    assert.equal(parseNextEdit({ suggestion: offer }), undefined);
    assert.equal(edits.get(offer.uri)?.newText, 'radius');
  });

  test('the preview is one line, shortened', () => {
    assert.equal(previewText({ ...offer, newText: 'a\n    b' }), '→ a ⏎ b');
    assert.equal(previewText({ ...offer, newText: 'x'.repeat(100) }, 10), '→ xxxxxxxxx…');
  });
});
