/**
 * How the server process is started: `sparkls.server.path`, else `python -m sparkls`
 * with `sparkls.server.python`, the Python extension's interpreter, or `python3`.
 *
 * Pure: the caller discovers the interpreter and reads the settings.
 */

export interface LaunchInputs {
  /** `sparkls.server.path`: a `sparkls` executable. */
  path?: string;
  /** `sparkls.server.python`: an interpreter with sparkls installed. */
  python?: string;
  /** The interpreter selected in the Python extension, if it is installed. */
  discoveredPython?: string;
  /** `sparkls.server.logLevel`. */
  logLevel?: string;
  platform: string;
  home: string;
  workspaceFolder?: string;
}

export type LaunchSource = 'server.path' | 'server.python' | 'python extension' | 'default interpreter';

export interface Launch {
  command: string;
  args: string[];
  source: LaunchSource;
}

const LOG_LEVELS = new Set(['DEBUG', 'INFO', 'WARNING', 'ERROR']);

/** `~`, `${userHome}` and `${workspaceFolder}` in a configured path. */
export function expandPath(value: string, vars: { home: string; workspaceFolder?: string }): string {
  let out = value.trim();
  if (out === '~' || out.startsWith('~/') || out.startsWith('~\\')) {
    out = vars.home + out.slice(1);
  }
  out = out.replace(/\$\{userHome\}/g, vars.home);
  if (vars.workspaceFolder !== undefined) {
    out = out.replace(/\$\{workspaceFolder\}/g, vars.workspaceFolder);
  }
  return out;
}

export function defaultPython(platform: string): string {
  return platform === 'win32' ? 'python' : 'python3';
}

export function resolveLaunch(inputs: LaunchInputs): Launch {
  const vars = { home: inputs.home, workspaceFolder: inputs.workspaceFolder };
  const level = inputs.logLevel?.toUpperCase();
  const logArgs = level !== undefined && LOG_LEVELS.has(level) ? ['--log-level', level] : [];
  const path = inputs.path?.trim();
  if (path) {
    return { command: expandPath(path, vars), args: logArgs, source: 'server.path' };
  }
  const configured = inputs.python?.trim();
  const [python, source]: [string, LaunchSource] = configured
    ? [expandPath(configured, vars), 'server.python']
    : inputs.discoveredPython
      ? [inputs.discoveredPython, 'python extension']
      : [defaultPython(inputs.platform), 'default interpreter'];
  return { command: python, args: ['-m', 'sparkls', ...logArgs], source };
}

/** One line for the log and for messages: the command, and where it came from. */
export function describeLaunch(launch: Launch): string {
  const quote = (part: string) => (/[\s"']/.test(part) ? `"${part.replace(/"/g, '\\"')}"` : part);
  return `${[launch.command, ...launch.args].map(quote).join(' ')} (from ${launch.source})`;
}

/**
 * A cheap check before a `python -m sparkls` start: is the interpreter there, and does
 * it have sparkls? (Without it the user would see only "connection closed".) Undefined
 * for `server.path`, which the start itself checks.
 */
export function preflight(launch: Launch): { command: string; args: string[] } | undefined {
  if (launch.source === 'server.path') {
    return undefined;
  }
  const check = 'import importlib.util, sys; sys.exit(0 if importlib.util.find_spec("sparkls") else 3)';
  return { command: launch.command, args: ['-c', check] };
}

/** The preflight's verdict: undefined when the start can go ahead, else why it cannot. */
export function preflightProblem(outcome: { exitCode?: number | null; errorCode?: string }): string | undefined {
  if (outcome.errorCode === 'ENOENT') {
    return 'the interpreter was not found';
  }
  if (outcome.exitCode === 3) {
    return 'sparkls is not installed in that interpreter';
  }
  if (outcome.errorCode !== undefined) {
    return `the interpreter did not run (${outcome.errorCode})`;
  }
  // Any other exit (a very old Python...) is left to the start to report in full.
  return undefined;
}

/** What to tell the user when the server did not start, with the way out. */
export function startFailureMessage(launch: Launch, error: string): string {
  const fix =
    launch.source === 'server.path'
      ? 'Check `sparkls.server.path`.'
      : `Install sparkls in that interpreter (in a sparkls checkout: \`${launch.command} -m pip install .\`), ` +
        'or set `sparkls.server.python` or `sparkls.server.path`.';
  return `Spark: the sparkls server did not start with ${describeLaunch(launch)}: ${error}. ${fix}`;
}
