import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Coalescer, TimeoutError, withTimeout } from '../src/common/async';

/** A task whose runs finish only when the test says so. */
function controlledTask() {
  const runs: Array<() => void> = [];
  const fails: Array<(e: Error) => void> = [];
  const task = () =>
    new Promise<void>((resolve, reject) => {
      runs.push(resolve);
      fails.push(reject);
    });
  return { task, runs, fails };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('Coalescer', () => {
  test('an idle coalescer runs at once', async () => {
    const { task, runs } = controlledTask();
    const c = new Coalescer(task);
    const done = c.request();
    assert.equal(runs.length, 1);
    runs[0]!();
    await done;
    assert.equal(c.busy, false);
  });

  test('requests during a run share one follow-up run', async () => {
    const { task, runs } = controlledTask();
    const c = new Coalescer(task);
    const first = c.request();
    const second = c.request();
    const third = c.request();
    assert.equal(second, third);
    assert.equal(runs.length, 1);
    runs[0]!();
    await first;
    await tick();
    assert.equal(runs.length, 2); // the follow-up started after the first ended
    let settled = false;
    void second.then(() => (settled = true));
    await tick();
    assert.equal(settled, false); // not before the follow-up finishes
    runs[1]!();
    await second;
    assert.equal(runs.length, 2);
  });

  test("a failed run fails its callers but still runs the queued one", async () => {
    const { task, runs, fails } = controlledTask();
    const c = new Coalescer(task);
    const first = c.request();
    const second = c.request();
    fails[0]!(new Error('no python'));
    await assert.rejects(first, /no python/);
    await tick();
    assert.equal(runs.length, 2);
    runs[1]!();
    await second;
  });

  test('idle() waits for everything in flight without starting anything', async () => {
    const { task, runs } = controlledTask();
    const c = new Coalescer(task);
    await c.idle();
    assert.equal(runs.length, 0);
    void c.request();
    void c.request();
    let idle = false;
    const waiting = c.idle().then(() => (idle = true));
    runs[0]!();
    await tick();
    assert.equal(idle, false);
    runs[1]!();
    await waiting;
    assert.equal(runs.length, 2);
  });
});

describe('withTimeout', () => {
  test('passes a prompt result through', async () => {
    assert.equal(await withTimeout(Promise.resolve(3), 1000, 'x'), 3);
  });

  test('gives up on a promise that never settles', async () => {
    await assert.rejects(withTimeout(new Promise(() => {}), 5, 'asking'), TimeoutError);
  });
});
