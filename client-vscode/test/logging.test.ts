import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LogOutputChannel } from 'vscode';
import { classifyStderrLine, redact, RedactingLogChannel } from '../src/common/logging';

const KEY = 'sk-proj-abcdefghijklmnop0123';

describe('redact', () => {
  test('the stored key, wherever it appears', () => {
    assert.equal(redact(`token ${KEY}.`, [KEY]), 'token [redacted].');
    assert.equal(redact('key=hunter2hunter2', ['hunter2hunter2']), 'key=[redacted]');
  });

  test('api_key fields in traced JSON, whatever the spelling', () => {
    const traced = JSON.stringify({ initializationOptions: { api_key: 'whatever-value', fast: { apiKey: 'x1' } } });
    const out = redact(traced);
    assert.ok(!out.includes('whatever-value'));
    assert.ok(!out.includes('x1'));
    assert.match(out, /"api_key":"\[redacted\]"/);
  });

  test('bearer tokens and sk- tokens even when unknown', () => {
    assert.equal(redact('Authorization: Bearer abc.def'), 'Authorization: Bearer [redacted]');
    assert.equal(redact('got sk-live_1234567890'), 'got sk-[redacted]');
  });

  test('short strings are not treated as secrets', () => {
    assert.equal(redact('a b c', ['a']), 'a b c');
  });
});

describe('classifyStderrLine', () => {
  test("a server log record keeps its level; the channel adds the time", () => {
    assert.deepEqual(classifyStderrLine('2026-03-01 10:00:00,123 WARNING sparkls.server: slow', undefined), {
      level: 'warn',
      text: 'sparkls.server: slow',
    });
    assert.equal(classifyStderrLine('2026-03-01 10:00:00,123 DEBUG x: y', 'error').level, 'debug');
  });

  test("a traceback line follows its record; anything before a record is an error", () => {
    assert.equal(classifyStderrLine('  File "x.py", line 1', 'info').level, 'info');
    assert.equal(classifyStderrLine('/usr/bin/python3: No module named sparkls', undefined).level, 'error');
  });
});

describe('RedactingLogChannel', () => {
  function fakeChannel(written: string[]): LogOutputChannel {
    const record =
      (level: string) =>
      (message: unknown, ...args: unknown[]) =>
        written.push([level, String(message), ...args.map(String)].join(' '));
    return {
      name: 'Spark',
      logLevel: 1,
      onDidChangeLogLevel: () => ({ dispose() {} }),
      trace: record('trace'),
      debug: record('debug'),
      info: record('info'),
      warn: record('warn'),
      error: record('error'),
      append: record('append'),
      appendLine: record('appendLine'),
      replace: record('replace'),
      clear() {},
      show() {},
      hide() {},
      dispose() {},
    } as unknown as LogOutputChannel;
  }

  test('nothing reaches the channel unredacted', () => {
    const written: string[] = [];
    const channel = new RedactingLogChannel(fakeChannel(written), () => [KEY]);
    channel.trace(`Sending request 'initialize' {"api_key": "${KEY}"}`);
    channel.info(`key ${KEY}`, { key: KEY });
    channel.error(new Error(`failed with ${KEY}`));
    channel.appendLine(KEY);
    channel.log('warn', `w ${KEY}`);
    assert.equal(written.length, 5);
    for (const line of written) {
      assert.ok(!line.includes(KEY), line);
    }
  });

  test('the key in use can change', () => {
    const written: string[] = [];
    let secrets: string[] = [];
    const channel = new RedactingLogChannel(fakeChannel(written), () => secrets);
    secrets = ['new-secret-value'];
    channel.info('new-secret-value');
    assert.deepEqual(written, ['info [redacted]']);
  });
});
