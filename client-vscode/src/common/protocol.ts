/**
 * What the extension sends to sparkls and reads back, beyond plain LSP: the command
 * names and arguments (README.md, "What you get"), and the shapes of their results.
 *
 * Pure: positions and URIs arrive already converted to protocol values.
 */

/** The languages sparkls parses; package.json's activation events and `when` clauses say the same. */
export const LANGUAGES = ['python', 'javascript', 'javascriptreact', 'typescript', 'typescriptreact', 'go', 'rust'];

export const EDIT_COMMAND = 'sparkls.edit';
export const TASK_COMMAND = 'sparkls.task';
export const REFINE_COMMAND = 'sparkls.refine';
export const SHOW_CONTEXT_COMMAND = 'sparkls.showContext';
export const STATUS_NOTIFICATION = 'sparkls/status';

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/** `sparkls.edit`: `{"uri", "range", "instruction"}`. */
/** The argument of `sparkls.refine`: the document whose last Spark edit to revise. */
export interface RefineArgs {
  uri: string;
  instruction: string;
}

export interface EditArgs {
  uri: string;
  range: Range;
  instruction: string;
}

/** `sparkls.showContext`: `{"uri", "range", "instruction"?}`. */
export interface ShowContextArgs {
  uri: string;
  range: Range;
  instruction?: string;
}

/** `sparkls.task`: `{"instruction", "uris"?, "range"?}`. */
export interface TaskArgs {
  instruction: string;
  uris?: string[];
  range?: Range;
}

/** The instruction the user typed, or undefined when there is nothing to send. */
export function cleanInstruction(text: string | undefined): string | undefined {
  const trimmed = text?.trim();
  return trimmed ? trimmed : undefined;
}

function isEmpty(range: Range): boolean {
  return range.start.line === range.end.line && range.start.character === range.end.character;
}

/**
 * A task's argument: the files in view (the active one first, each once) and, when text
 * is selected in the active file, that range.
 */
export function taskArgs(instruction: string, uris: readonly string[], selection?: Range): TaskArgs {
  const args: TaskArgs = { instruction };
  const unique = [...new Set(uris)];
  if (unique.length > 0) {
    args.uris = unique;
  }
  if (selection !== undefined && !isEmpty(selection) && unique.length > 0) {
    args.range = selection;
  }
  return args;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A failure the server reported as a result (`{"applied": false, "error": {...}}`).
 * The server has already shown it to the user, so the extension only logs it.
 */
export function reportedFailure(result: unknown): string | undefined {
  if (isRecord(result) && result.applied === false && isRecord(result.error)) {
    return typeof result.error.message === 'string' ? result.error.message : 'the server reported an error';
  }
  return undefined;
}

/** One line for the log from a `sparkls.showContext` result. */
export function contextSummary(result: unknown): string | undefined {
  if (!isRecord(result) || !isRecord(result.region)) {
    return undefined;
  }
  const { path, start_line: start, end_line: end } = result.region;
  const snippets = Array.isArray(result.snippets) ? result.snippets.length : 0;
  const tokens = typeof result.tokens === 'number' ? `, about ${result.tokens} tokens` : '';
  return `context for ${String(path)} lines ${String(start)}-${String(end)}: ${snippets} snippet(s)${tokens}`;
}

/** The message of anything thrown (a ResponseError from the server included). */
export function errorText(error: unknown): string {
  if (error instanceof Error) {
    return error.message;
  }
  if (isRecord(error) && typeof error.message === 'string') {
    return error.message;
  }
  return String(error);
}
