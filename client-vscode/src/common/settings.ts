/**
 * Settings: which `sparkls.*` keys belong to the server, and the object it receives.
 *
 * The one definition of the settings is package.json's `contributes.configuration`
 * (tests/unit/test_vscode_settings.py holds it to the server's pydantic model). Keys
 * listed in package.json's `sparkls.clientOnlySettings` are the extension's own and are
 * never sent. Only values the user set (user, workspace or folder settings) are sent:
 * a contributed default would otherwise override the workspace's `.sparkls.toml`.
 *
 * A repository can write workspace and folder settings (`.vscode/settings.json`), so
 * the settings that choose where code and the key go, which key, which certificates,
 * whether edits are reviewed, and which program runs, are declared with scope
 * `machine`: VS Code takes them from user or remote settings only. `userValue` reads
 * them that way too, whatever VS Code does (one rule, decided from the manifest).
 *
 * Pure: knows nothing of the VS Code API.
 */

export const SECTION = 'sparkls';

export interface ManifestSettings {
  /** Keys sent to the server, without the `sparkls.` prefix, e.g. `fast.baseUrl`. */
  serverKeys: string[];
  /** The extension's own keys, e.g. `server.path`. */
  clientOnlyKeys: string[];
  /** Keys a workspace may not set (scope `machine` or `application`), either kind. */
  userOnlyKeys: string[];
}

/** The scopes VS Code never reads from workspace or folder settings. */
export const USER_ONLY_SCOPES: readonly string[] = ['machine', 'application'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The contributed `sparkls.*` keys of an extension manifest (package.json), split. */
export function manifestSettings(manifest: unknown): ManifestSettings {
  if (!isRecord(manifest) || !isRecord(manifest.contributes)) {
    throw new Error('package.json has no contributes section');
  }
  const raw = manifest.contributes.configuration;
  const sections = Array.isArray(raw) ? raw : [raw];
  const keys: string[] = [];
  const userOnly = new Set<string>();
  for (const section of sections) {
    if (isRecord(section) && isRecord(section.properties)) {
      for (const [key, schema] of Object.entries(section.properties)) {
        keys.push(key);
        if (isRecord(schema) && typeof schema.scope === 'string' && USER_ONLY_SCOPES.includes(schema.scope)) {
          userOnly.add(key);
        }
      }
    }
  }
  const own = isRecord(manifest.sparkls) ? manifest.sparkls.clientOnlySettings : undefined;
  const clientOnly = new Set(Array.isArray(own) ? own.filter((k): k is string => typeof k === 'string') : []);
  const prefix = SECTION + '.';
  const all = keys.filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length));
  return {
    serverKeys: all.filter((k) => !clientOnly.has(k)),
    clientOnlyKeys: all.filter((k) => clientOnly.has(k)),
    userOnlyKeys: all.filter((k) => userOnly.has(prefix + k)),
  };
}

/** The parts of `WorkspaceConfiguration.inspect()` that count as "set by the user". */
export interface Inspection {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/**
 * The user's value for a key, most specific scope first; `undefined` if only defaulted.
 * `userOnly`: the user's (or remote) settings alone count, never a workspace's.
 */
export function explicitValue(inspection: Inspection | undefined, userOnly: boolean): unknown {
  if (inspection === undefined) {
    return undefined;
  }
  const scopes = userOnly
    ? [inspection.globalValue]
    : [inspection.workspaceFolderValue, inspection.workspaceValue, inspection.globalValue];
  return scopes.find((value) => value !== undefined);
}

/** `explicitValue` for one `sparkls.*` key (without the prefix), user-only as the manifest scopes it. */
export function userValue(settings: ManifestSettings, key: string, inspection: Inspection | undefined): unknown {
  return explicitValue(inspection, settings.userOnlyKeys.includes(key));
}

export type ServerSettings = Record<string, unknown>;

/**
 * The nested settings object for the server (camelCase keys, which the server accepts):
 * `fast.baseUrl = "…"` becomes `{"fast": {"baseUrl": "…"}}`. Unset keys are left out;
 * `null` is kept (it means "no limit" for the timeouts).
 */
export function serverSettings(keys: readonly string[], valueOf: (key: string) => unknown): ServerSettings {
  const out: ServerSettings = {};
  for (const key of keys) {
    const value = valueOf(key);
    if (value === undefined) {
      continue;
    }
    const path = key.split('.');
    let node = out;
    for (const part of path.slice(0, -1)) {
      let child = node[part];
      if (!isRecord(child)) {
        child = {};
        node[part] = child;
      }
      node = child as ServerSettings;
    }
    node[path[path.length - 1]!] = value;
  }
  return out;
}

/**
 * sparkls's own notifications the extension handles (the status item, next-edit
 * suggestions): the server sends them only to clients that ask (`notifications`).
 */
export const NOTIFICATIONS = ['status', 'nextEdit'];

/**
 * `initializationOptions`: the settings, plus the key from VS Code's secret storage as
 * `api_key` (config.py `Settings.api_key`, for all tiers), plus the notifications asked
 * for (`notifications`, the client's, not a setting). The key is never put in the
 * settings pushed later, so it exists in exactly one message.
 */
export function initializationOptions(settings: ServerSettings, apiKey: string | undefined): ServerSettings {
  const options: ServerSettings = { ...settings, notifications: [...NOTIFICATIONS] };
  return apiKey ? { ...options, api_key: apiKey } : options;
}

export type ChangeAction = 'restart' | 'push' | 'none';

/**
 * What a configuration change calls for: a new server process when the way to start it
 * changed, new settings for the running server when one of its keys changed, else
 * nothing (`trace.server` and `inlineCompletion.enabled` are read live).
 */
export function configurationChange(
  affects: (section: string) => boolean,
  serverKeys: readonly string[],
): ChangeAction {
  if (affects(`${SECTION}.server`)) {
    return 'restart';
  }
  return serverKeys.some((key) => affects(`${SECTION}.${key}`)) ? 'push' : 'none';
}
