import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  configurationChange,
  explicitValue,
  initializationOptions,
  manifestSettings,
  NOTIFICATIONS,
  serverSettings,
  userValue,
  USER_ONLY_SCOPES,
} from '../src/common/settings';
import { readJson } from './helpers';

const manifest = readJson('package.json');

describe('manifestSettings', () => {
  const { serverKeys, clientOnlyKeys } = manifestSettings(manifest);

  test('server keys are the contributed sparkls.* keys minus the client-only ones', () => {
    assert.ok(serverKeys.includes('fast.baseUrl'));
    assert.ok(serverKeys.includes('deep.model'));
    assert.ok(serverKeys.includes('context.exclude'));
    assert.ok(serverKeys.includes('apiKeyEnv'));
    assert.ok(!serverKeys.some((k) => k.startsWith('server.')));
  });

  test('every client-only key is contributed', () => {
    assert.deepEqual(
      [...clientOnlyKeys].sort(),
      ['inlineCompletion.enabled', 'server.logLevel', 'server.path', 'server.python', 'trace.server'],
    );
  });

  test('no API key is ever a setting', () => {
    assert.deepEqual(
      [...serverKeys, ...clientOnlyKeys].filter((k) => /apiKey$/i.test(k)),
      [],
    );
  });

  test('accepts a single configuration object as well as an array', () => {
    const single = {
      contributes: { configuration: { properties: { 'sparkls.fast.model': {}, 'other.key': {} } } },
    };
    assert.deepEqual(manifestSettings(single), { serverKeys: ['fast.model'], clientOnlyKeys: [], userOnlyKeys: [] });
  });

  test('user-only keys are those scoped machine or application, of either kind', () => {
    const scoped = (scope?: string) => (scope === undefined ? {} : { scope });
    const manifest = {
      sparkls: { clientOnlySettings: ['server.path', 'trace.server'] },
      contributes: {
        configuration: {
          properties: {
            'sparkls.fast.baseUrl': scoped('machine'),
            'sparkls.apiKeyEnv': scoped('application'),
            'sparkls.server.path': scoped('machine'),
            'sparkls.trace.server': scoped('window'),
            'sparkls.fast.model': scoped(),
            'sparkls.context.exclude': scoped('machine-overridable'),
            'sparkls.context.index': scoped('resource'),
          },
        },
      },
    };
    assert.deepEqual(manifestSettings(manifest).userOnlyKeys, ['fast.baseUrl', 'apiKeyEnv', 'server.path']);
    assert.deepEqual([...USER_ONLY_SCOPES].sort(), ['application', 'machine']);
  });

  test('in our manifest, where code and keys go and what runs are user-only', () => {
    const { userOnlyKeys } = manifestSettings(manifest);
    for (const key of ['fast.baseUrl', 'deep.baseUrl', 'localBaseUrl', 'apiKeyEnv', 'fast.caFile', 'server.path']) {
      assert.ok(userOnlyKeys.includes(key), key);
    }
    assert.ok(!userOnlyKeys.includes('fast.model'));
  });
});

describe('explicitValue', () => {
  test('a contributed default alone is not sent', () => {
    assert.equal(explicitValue({}, false), undefined);
    assert.equal(explicitValue(undefined, false), undefined);
    assert.equal(explicitValue({}, true), undefined);
  });

  test('the most specific scope wins', () => {
    assert.equal(explicitValue({ globalValue: 1, workspaceValue: 2, workspaceFolderValue: 3 }, false), 3);
    assert.equal(explicitValue({ globalValue: 1, workspaceValue: 2 }, false), 2);
    assert.equal(explicitValue({ globalValue: 1 }, false), 1);
  });

  test('user-only: a workspace or folder value is never taken, the user value is', () => {
    assert.equal(explicitValue({ globalValue: 1, workspaceValue: 2, workspaceFolderValue: 3 }, true), 1);
    assert.equal(explicitValue({ workspaceValue: 'http://attacker.example/v1' }, true), undefined);
    assert.equal(explicitValue({ workspaceFolderValue: 'GITHUB_TOKEN' }, true), undefined);
  });

  test('an explicit null is a value (no limit)', () => {
    assert.equal(explicitValue({ globalValue: null }, false), null);
    assert.equal(explicitValue({ globalValue: null }, true), null);
  });
});

describe('userValue', () => {
  const settings = manifestSettings(manifest);
  const fromRepository = { globalValue: undefined, workspaceValue: 'http://attacker.example/v1' };

  test('a repository\'s workspace settings cannot move a tier, name the key variable or the server', () => {
    for (const key of ['fast.baseUrl', 'deep.baseUrl', 'fast.apiKeyEnv', 'apiKeyEnv', 'deep.caFile', 'server.python']) {
      assert.equal(userValue(settings, key, fromRepository), undefined, key);
      assert.equal(userValue(settings, key, { ...fromRepository, globalValue: 'mine' }), 'mine', key);
    }
  });

  test('other settings still come from the workspace', () => {
    assert.equal(userValue(settings, 'fast.model', { globalValue: 'a', workspaceValue: 'b' }), 'b');
    assert.deepEqual(userValue(settings, 'context.exclude', { workspaceFolderValue: ['gen/'] }), ['gen/']);
  });

  test('the server receives only the user\'s values for user-only keys', () => {
    const inspections: Record<string, { globalValue?: unknown; workspaceValue?: unknown }> = {
      'fast.baseUrl': fromRepository,
      'deep.store': { workspaceValue: true },
      'deep.confirm': { globalValue: true, workspaceValue: false },
      'fast.model': { workspaceValue: 'project-model' },
    };
    const sent = serverSettings(settings.serverKeys, (key) => userValue(settings, key, inspections[key]));
    assert.deepEqual(sent, { fast: { model: 'project-model' }, deep: { confirm: true } });
  });
});

describe('serverSettings', () => {
  test('dotted keys become nested camelCase objects; unset keys are left out', () => {
    const values: Record<string, unknown> = {
      'fast.baseUrl': 'http://127.0.0.1:8765/v1',
      'fast.connectTimeout': null,
      'context.maxRegionLines': 200,
      apiKeyEnv: 'MY_KEY',
    };
    const keys = ['fast.baseUrl', 'fast.model', 'fast.connectTimeout', 'context.maxRegionLines', 'apiKeyEnv'];
    assert.deepEqual(serverSettings(keys, (k) => values[k]), {
      fast: { baseUrl: 'http://127.0.0.1:8765/v1', connectTimeout: null },
      context: { maxRegionLines: 200 },
      apiKeyEnv: 'MY_KEY',
    });
  });

  test('nothing set: an empty object, so the project file and defaults apply', () => {
    assert.deepEqual(serverSettings(['fast.model', 'context.index'], () => undefined), {});
  });

  test('lists pass through whole', () => {
    assert.deepEqual(serverSettings(['context.exclude'], () => ['secrets/', '*.gen.ts']), {
      context: { exclude: ['secrets/', '*.gen.ts'] },
    });
  });
});

describe('initializationOptions', () => {
  test('the stored key goes in as api_key, without touching the settings', () => {
    const settings = { fast: { model: 'm' } };
    assert.deepEqual(initializationOptions(settings, 'sk-test-123456'), {
      fast: { model: 'm' },
      notifications: ['status', 'nextEdit'],
      api_key: 'sk-test-123456',
    });
    assert.deepEqual(settings, { fast: { model: 'm' } });
  });

  test('no stored key: no api_key (the server reads its environment variable)', () => {
    assert.deepEqual(initializationOptions({}, undefined), { notifications: ['status', 'nextEdit'] });
    assert.deepEqual(initializationOptions({}, ''), { notifications: ['status', 'nextEdit'] });
  });

  test('asks for the status and next-edit notifications the extension handles', () => {
    assert.deepEqual(initializationOptions({}, undefined).notifications, [...NOTIFICATIONS]);
  });
});

describe('configurationChange', () => {
  const keys = ['fast.model', 'context.index'];
  const affecting = (...sections: string[]) => (s: string) =>
    sections.some((changed) => changed === s || changed.startsWith(s + '.'));

  test('a server.* change restarts the server', () => {
    assert.equal(configurationChange(affecting('sparkls.server.python'), keys), 'restart');
  });

  test('a server setting is pushed to the running server', () => {
    assert.equal(configurationChange(affecting('sparkls.fast.model'), keys), 'push');
  });

  test('client-only and foreign settings do nothing', () => {
    assert.equal(configurationChange(affecting('sparkls.trace.server'), keys), 'none');
    assert.equal(configurationChange(affecting('editor.fontSize'), keys), 'none');
  });
});
