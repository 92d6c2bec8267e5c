import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  describeLaunch,
  expandPath,
  preflight,
  preflightProblem,
  resolveLaunch,
  startFailureMessage,
  type LaunchInputs,
} from '../src/common/launch';

const base: LaunchInputs = { platform: 'linux', home: '/home/ada', workspaceFolder: '/work/proj' };

describe('resolveLaunch', () => {
  test('a configured server path wins over everything', () => {
    const launch = resolveLaunch({ ...base, path: '/opt/sparkls/bin/sparkls', python: '/usr/bin/python3.12', discoveredPython: '/venv/bin/python' });
    assert.deepEqual(launch, { command: '/opt/sparkls/bin/sparkls', args: [], source: 'server.path' });
  });

  test('a configured interpreter runs python -m sparkls', () => {
    const launch = resolveLaunch({ ...base, python: '${workspaceFolder}/.venv/bin/python', discoveredPython: '/venv/bin/python' });
    assert.deepEqual(launch, { command: '/work/proj/.venv/bin/python', args: ['-m', 'sparkls'], source: 'server.python' });
  });

  test("the Python extension's interpreter comes next", () => {
    const launch = resolveLaunch({ ...base, path: '  ', python: '', discoveredPython: '/venv/bin/python' });
    assert.deepEqual(launch, { command: '/venv/bin/python', args: ['-m', 'sparkls'], source: 'python extension' });
  });

  test('else python3 (python on Windows)', () => {
    assert.equal(resolveLaunch(base).command, 'python3');
    assert.equal(resolveLaunch(base).source, 'default interpreter');
    assert.equal(resolveLaunch({ ...base, platform: 'win32' }).command, 'python');
  });

  test('the log level becomes --log-level; an unknown one is dropped', () => {
    assert.deepEqual(resolveLaunch({ ...base, logLevel: 'debug' }).args, ['-m', 'sparkls', '--log-level', 'DEBUG']);
    assert.deepEqual(resolveLaunch({ ...base, path: '/bin/sparkls', logLevel: 'INFO' }).args, ['--log-level', 'INFO']);
    assert.deepEqual(resolveLaunch({ ...base, logLevel: 'LOUD' }).args, ['-m', 'sparkls']);
  });
});

describe('expandPath', () => {
  test('~ and ${userHome} are the home directory', () => {
    assert.equal(expandPath('~/bin/sparkls', base), '/home/ada/bin/sparkls');
    assert.equal(expandPath('${userHome}/x', base), '/home/ada/x');
    assert.equal(expandPath('/a~b', base), '/a~b');
  });

  test('${workspaceFolder} stays as typed when there is no folder', () => {
    assert.equal(expandPath('${workspaceFolder}/py', { home: '/h' }), '${workspaceFolder}/py');
  });
});

describe('messages', () => {
  test('describeLaunch quotes parts with spaces and names the source', () => {
    const text = describeLaunch({ command: 'C:\\Program Files\\Python\\python.exe', args: ['-m', 'sparkls'], source: 'server.python' });
    assert.equal(text, '"C:\\Program Files\\Python\\python.exe" -m sparkls (from server.python)');
  });

  test('a failed interpreter start says how to install sparkls there', () => {
    const message = startFailureMessage(resolveLaunch(base), 'No module named sparkls');
    assert.match(message, /python3 -m sparkls/);
    assert.match(message, /No module named sparkls/);
    assert.match(message, /pip install/);
    assert.match(message, /sparkls\.server\.path/);
  });

  test('a failed server path points at the setting', () => {
    const message = startFailureMessage(resolveLaunch({ ...base, path: '/nope' }), 'ENOENT');
    assert.match(message, /Check `sparkls\.server\.path`/);
  });
});

describe('preflight', () => {
  test('an interpreter is asked whether it has sparkls; a server path is not', () => {
    const check = preflight(resolveLaunch(base));
    assert.equal(check?.command, 'python3');
    assert.equal(check?.args[0], '-c');
    assert.match(check?.args[1] ?? '', /find_spec\("sparkls"\)/);
    assert.equal(preflight(resolveLaunch({ ...base, path: '/bin/sparkls' })), undefined);
  });

  test('the verdicts', () => {
    assert.equal(preflightProblem({ exitCode: 0 }), undefined);
    assert.equal(preflightProblem({ exitCode: 3 }), 'sparkls is not installed in that interpreter');
    assert.equal(preflightProblem({ errorCode: 'ENOENT' }), 'the interpreter was not found');
    assert.equal(preflightProblem({ errorCode: 'EACCES' }), 'the interpreter did not run (EACCES)');
    assert.equal(preflightProblem({ exitCode: 1 }), undefined);
  });
});
