import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  formatMs,
  locationLabel,
  mergeTiers,
  parseEditSummary,
  parseStatusNotification,
  statusView,
  type StatusSnapshot,
  type TierStatus,
} from '../src/common/status';
import { readJson } from './helpers';

// Both fixtures are checked against the server's own code by tests/unit/test_vscode_settings.py.
const notification = readJson('test/fixtures/status.json');
const editSummary = readJson('test/fixtures/edit-summary.json');

function tier(state: string, extra: Partial<TierStatus> = {}): TierStatus {
  return {
    tier: 'fast', model: 'spark', host: 'api.openai.com', state, transport: 'websocket', reason: null, last: null, location: 'remote',
    mode: 'lanes', lanes_off: null, wasted_tokens: 0,
    ...extra,
  };
}

function running(tiers: Record<string, TierStatus>, extra: Partial<StatusSnapshot> = {}): StatusSnapshot {
  return { server: 'running', tiers, ...extra };
}

describe('parsing', () => {
  test("the server's sparkls/status payload", () => {
    const tiers = parseStatusNotification(notification);
    assert.deepEqual(Object.keys(tiers), ['fast']);
    assert.equal(tiers.fast?.state, 'ready');
    assert.deepEqual(tiers.fast?.last, { transport: 'websocket', mode: 'lanes', wait_ms: 3.25, ttft_ms: 81.25, stream_ms: 142.5 });
    assert.equal(tiers.fast?.mode, 'lanes');
    assert.equal(tiers.fast?.lanes_off, null);
    assert.equal(tiers.fast?.wasted_tokens, 0);
  });

  test('an older server without mode, lanes_off, wasted_tokens or the wait', () => {
    const tiers = parseStatusNotification({
      tiers: { fast: { state: 'ready', transport: 'websocket', last: { transport: 'websocket', ttft_ms: 80, stream_ms: 140 } } },
    });
    assert.deepEqual(tiers.fast?.last, { transport: 'websocket', mode: '', wait_ms: null, ttft_ms: 80, stream_ms: 140 });
    assert.equal(tiers.fast?.mode, '');
    assert.equal(tiers.fast?.lanes_off, null);
    assert.equal(tiers.fast?.wasted_tokens, 0);
  });

  test('a pool says why, wasted tokens are kept, nonsense is not', () => {
    const why = '127.0.0.1:8765 does not run lanes (its responses name no lane)';
    const tiers = parseStatusNotification({
      tiers: {
        fast: { state: 'ready', mode: 'pool', lanes_off: why, wasted_tokens: 412 },
        deep: { state: 'ready', mode: 7, lanes_off: '', wasted_tokens: 'many' },
      },
    });
    assert.equal(tiers.fast?.mode, 'pool');
    assert.equal(tiers.fast?.lanes_off, why);
    assert.equal(tiers.fast?.wasted_tokens, 412);
    assert.equal(tiers.deep?.mode, '');
    assert.equal(tiers.deep?.lanes_off, null);
    assert.equal(tiers.deep?.wasted_tokens, 0);
  });

  test('malformed tiers are skipped, not fatal', () => {
    assert.deepEqual(parseStatusNotification(null), {});
    assert.deepEqual(parseStatusNotification({ tiers: { fast: 'ready', deep: { state: 'ready' } } }), {
      deep: {
        tier: 'deep', model: '', host: '', state: 'ready', transport: '', reason: null, last: null, location: '',
        mode: '', lanes_off: null, wasted_tokens: 0,
      },
    });
  });

  test('a notification with one tier keeps the others', () => {
    const merged = mergeTiers({ fast: tier('ready'), deep: tier('idle', { tier: 'deep' }) }, { fast: tier('failing') });
    assert.equal(merged.fast?.state, 'failing');
    assert.equal(merged.deep?.state, 'idle');
  });

  test("the sparkls.edit summary", () => {
    const summary = parseEditSummary(editSummary);
    assert.equal(summary?.applied, true);
    assert.equal(summary?.timings_ms.total, 226.8);
    assert.equal(summary?.timings_ms.wait, 3.2);
    assert.equal(parseEditSummary({ nope: 1 }), undefined);
  });
});

describe('statusView', () => {
  test('warming up while the fast tier connects', () => {
    const view = statusView(running({ fast: tier('connecting') }));
    assert.equal(view.text, '$(sync~spin) Spark: warming');
    assert.equal(view.severity, 'normal');
  });

  test('ready, with the last edit latency', () => {
    const view = statusView(running(parseStatusNotification(notification), { lastEdit: parseEditSummary(editSummary)! }));
    assert.equal(view.text, '$(zap) Spark 227 ms');
    assert.match(view.tooltip, /fast: gpt-5.3-codex-spark at api.openai.com \(remote\) — ready over websocket \(lanes: one connection\)\n/);
    assert.match(view.tooltip, /last request: 3 ms waiting, 81 ms to first token, 143 ms streaming \(websocket, lanes\)\n/);
    assert.doesNotMatch(view.tooltip, /wasted/);
    assert.match(view.tooltip, /Last edit: 227 ms \(context 2 ms, model 224 ms, edit <1 ms, apply 12 ms\), fast tier over websocket/);
  });

  test('a tier served by a pool says why', () => {
    const why = '127.0.0.1:8765 does not run lanes (its responses name no lane)';
    const last = { transport: 'websocket', mode: 'pool', wait_ms: 12, ttft_ms: 120, stream_ms: 400 };
    const view = statusView(running({ fast: tier('ready', { mode: 'pool', lanes_off: why, last }) }));
    assert.ok(view.tooltip.includes(`— ready over websocket (a pool of sockets: ${why})\n`), view.tooltip);
    assert.match(view.tooltip, /last request: 12 ms waiting, 120 ms to first token, 400 ms streaming \(websocket, pool\)/);
    const off = statusView(running({ fast: tier('ready', { mode: 'pool', lanes_off: "the tier's `lanes` setting is off" }) }));
    assert.match(off.tooltip, /ready over websocket \(a pool of sockets: the tier's `lanes` setting is off\)/);
  });

  test('over HTTP neither lanes nor a pool is named', () => {
    const last = { transport: 'http', mode: 'http', wait_ms: 0.2, ttft_ms: 120, stream_ms: 400 };
    const view = statusView(running({ fast: tier('ready', { transport: 'http', mode: 'http', last }) }));
    assert.match(view.tooltip, /— ready over http\n/);
    assert.match(view.tooltip, /last request: <1 ms waiting, 120 ms to first token, 400 ms streaming \(http\)\n/);
  });

  test('wasted tokens of cancelled responses are shown when there are some', () => {
    const view = statusView(running({ fast: tier('ready', { wasted_tokens: 1234 }) }));
    assert.match(view.tooltip, /wasted: 1,234 output tokens of cancelled responses \(streamed on and dropped\)/);
    assert.match(statusView(running({ fast: tier('ready', { wasted_tokens: 1 }) })).tooltip, /wasted: 1 output token of/);
  });

  test('an older server without the new fields renders as before', () => {
    const last = { transport: 'websocket', mode: '', wait_ms: null, ttft_ms: 81, stream_ms: 143 };
    const view = statusView(running({ fast: tier('ready', { mode: '', lanes_off: null, wasted_tokens: 0, last }) }));
    assert.equal(view.text, '$(zap) Spark');
    assert.match(view.tooltip, /— ready over websocket\n/);
    assert.match(view.tooltip, /  last request: 81 ms to first token, 143 ms streaming \(websocket\)\n/);
    assert.doesNotMatch(view.tooltip, /lanes|pool|waiting|wasted/);
  });

  test('degraded to HTTP is a warning that says why', () => {
    const view = statusView(running({ fast: tier('degraded', { transport: 'http', reason: 'proxy refused the upgrade' }) }));
    assert.equal(view.text, '$(warning) Spark: HTTP');
    assert.equal(view.severity, 'warning');
    assert.match(view.tooltip, /degraded to HTTP: proxy refused the upgrade/);
  });

  test('failing is an error that says why', () => {
    const view = statusView(running({ fast: tier('failing', { reason: 'No API key for the fast tier' }) }));
    assert.equal(view.text, '$(error) Spark: failing');
    assert.equal(view.severity, 'error');
    assert.match(view.tooltip, /failing: No API key for the fast tier/);
  });

  test('the headline follows the fast tier, not a failing deep tier', () => {
    const view = statusView(running({ deep: tier('failing', { tier: 'deep' }), fast: tier('ready') }));
    assert.equal(view.severity, 'normal');
    assert.match(view.tooltip, /deep: spark at api.openai.com \(remote\) — failing/);
  });

  test('a failed edit shows in the tooltip, not as a latency', () => {
    const lastEdit = { applied: false, timings_ms: {}, error: { code: 'rejected', message: 'no change' } };
    const view = statusView(running({ fast: tier('ready') }, { lastEdit }));
    assert.equal(view.text, '$(zap) Spark');
    assert.match(view.tooltip, /Last edit failed: no change/);
  });

  test('server starting and stopped', () => {
    assert.equal(statusView({ server: 'starting', tiers: {} }).text, '$(loading~spin) Spark');
    const stopped = statusView({ server: 'stopped', serverError: 'No module named sparkls', tiers: {} });
    assert.equal(stopped.severity, 'error');
    assert.match(stopped.tooltip, /No module named sparkls/);
  });

  test('both tiers local: the headline says so', () => {
    const local = { host: '127.0.0.1:8765', location: 'local' };
    const view = statusView(running({ fast: tier('ready', local), deep: tier('idle', { tier: 'deep', ...local }) }));
    assert.equal(view.text, '$(zap) Spark (local)');
    assert.match(view.tooltip, /fast: spark at 127.0.0.1:8765 \(local\) — ready/);
  });

  test('one tier local and the other remote: the headline names both', () => {
    const tiers = { deep: tier('idle', { tier: 'deep' }), fast: tier('ready', { location: 'local' }) };
    assert.equal(statusView(running(tiers)).text, '$(zap) Spark (fast local, deep remote)');
    assert.equal(locationLabel({ fast: tier('ready') }), '');
  });

  test('an older server that does not say where is shown as before', () => {
    assert.equal(statusView(running({ fast: tier('ready', { location: '' }) })).text, '$(zap) Spark');
  });

  test('every view says that a click shows the logs', () => {
    for (const s of [{ server: 'starting', tiers: {} }, running({ fast: tier('ready') })] as StatusSnapshot[]) {
      assert.match(statusView(s).tooltip, /Click to show the logs/);
    }
  });
});

test('formatMs', () => {
  assert.equal(formatMs(0.4), '<1 ms');
  assert.equal(formatMs(182.4), '182 ms');
  assert.equal(formatMs(1440), '1.4 s');
});
