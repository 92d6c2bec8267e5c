/**
 * The interpreter selected in the Python extension (ms-python.python), when it is
 * installed: its public `environments` API, typed here with only what we use.
 */
import * as vscode from 'vscode';
import { withTimeout } from './common/async';

const PYTHON_EXTENSION = 'ms-python.python';
const DISCOVERY_TIMEOUT_MS = 10_000;

interface EnvironmentPath {
  path: string;
}

interface PythonExtensionApi {
  ready?: Promise<void>;
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): EnvironmentPath;
    resolveEnvironment(environment: EnvironmentPath | string): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
}

async function pythonApi(): Promise<PythonExtensionApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION);
  if (extension === undefined) {
    return undefined;
  }
  const api = extension.isActive ? extension.exports : await extension.activate();
  await api?.ready;
  return api;
}

/** The active interpreter's executable, or undefined (no Python extension, no interpreter). */
export async function discoverPython(resource: vscode.Uri | undefined, log: vscode.LogOutputChannel): Promise<string | undefined> {
  try {
    return await withTimeout(
      (async () => {
        const environments = (await pythonApi())?.environments;
        if (environments === undefined) {
          return undefined;
        }
        const resolved = await environments.resolveEnvironment(environments.getActiveEnvironmentPath(resource));
        return resolved?.executable.uri?.fsPath;
      })(),
      DISCOVERY_TIMEOUT_MS,
      'asking the Python extension for its interpreter',
    );
  } catch (error) {
    log.warn(`Python extension: no interpreter (${error instanceof Error ? error.message : String(error)})`);
    return undefined;
  }
}

/** Call `onChange` when the user picks another interpreter in the Python extension. */
export function watchPythonInterpreter(onChange: () => void): vscode.Disposable | undefined {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION);
  const event = extension?.isActive ? extension.exports?.environments?.onDidChangeActiveEnvironmentPath : undefined;
  return event?.(() => onChange());
}
