/**
 * The status item's model: the server's `sparkls/status` notifications (one
 * `TierStatus` per tier, server/sparkls/models/session.py), the last edit's summary
 * (the `sparkls.edit` result, server/sparkls/lsp/handlers/convert.py), and the process state,
 * turned into text, tooltip and severity.
 *
 * Pure: parsing is defensive (a newer server may send more), rendering has no VS Code.
 */

export interface LastRequest {
  transport: string;
  /** lanes | pool | http (see `TierStatus.mode`); `''` from an older server. */
  mode: string;
  /** How long it waited before it was sent (for a pooled socket, a lane or a connection); null from an older server. */
  wait_ms: number | null;
  ttft_ms: number;
  stream_ms: number;
}

export interface TierStatus {
  tier: string;
  model: string;
  host: string;
  /** idle | connecting | ready | degraded | failing */
  state: string;
  /** The transport requests use now: websocket, or http (configured, or fallen back). */
  transport: string;
  reason: string | null;
  last: LastRequest | null;
  /** `local`: its host is loopback, requests never leave the machine; `remote`; `''` from an older server. */
  location: string;
  /**
   * How WebSocket requests share connections: `lanes` (each concurrent request on its own
   * lane of one connection), `pool` (a pool of sockets, one response at a time each),
   * `http`; `''` from an older server.
   */
  mode: string;
  /** Why the tier is served by a pool instead of lanes; null when it is not (or an older server). */
  lanes_off: string | null;
  /** Output tokens of cancelled responses that streamed on and were dropped; 0 from an older server. */
  wasted_tokens: number;
}

export interface EditSummary {
  applied: boolean;
  tier?: string;
  model?: string;
  transport?: string;
  edits?: number;
  timings_ms: Record<string, number>;
  error?: { code: string; message: string };
}

export type ServerState = 'starting' | 'running' | 'stopped';

export interface StatusSnapshot {
  server: ServerState;
  /** Why the server is stopped, when it did not stop on purpose. */
  serverError?: string;
  tiers: Record<string, TierStatus>;
  lastEdit?: EditSummary;
}

export type Severity = 'normal' | 'warning' | 'error';

export interface StatusView {
  text: string;
  tooltip: string;
  severity: Severity;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value : fallback;
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function parseTier(name: string, raw: unknown): TierStatus | undefined {
  if (!isRecord(raw) || typeof raw.state !== 'string') {
    return undefined;
  }
  let last: LastRequest | null = null;
  if (isRecord(raw.last)) {
    const ttft = num(raw.last.ttft_ms);
    const stream = num(raw.last.stream_ms);
    if (ttft !== undefined && stream !== undefined) {
      last = {
        transport: str(raw.last.transport),
        mode: str(raw.last.mode),
        wait_ms: num(raw.last.wait_ms) ?? null,
        ttft_ms: ttft,
        stream_ms: stream,
      };
    }
  }
  const wasted = num(raw.wasted_tokens);
  return {
    tier: str(raw.tier, name),
    model: str(raw.model),
    host: str(raw.host),
    state: raw.state,
    transport: str(raw.transport),
    reason: typeof raw.reason === 'string' && raw.reason ? raw.reason : null,
    last,
    location: str(raw.location),
    mode: str(raw.mode),
    lanes_off: typeof raw.lanes_off === 'string' && raw.lanes_off ? raw.lanes_off : null,
    wasted_tokens: wasted !== undefined && wasted > 0 ? wasted : 0,
  };
}

/** The tiers in a `sparkls/status` notification (`{"tiers": {name: TierStatus}}`). */
export function parseStatusNotification(params: unknown): Record<string, TierStatus> {
  const out: Record<string, TierStatus> = {};
  const tiers = isRecord(params) ? params.tiers : undefined;
  if (isRecord(tiers)) {
    for (const [name, raw] of Object.entries(tiers)) {
      const tier = parseTier(name, raw);
      if (tier !== undefined) {
        out[name] = tier;
      }
    }
  }
  return out;
}

/** A notification carries only the tiers that changed: the others keep their state. */
export function mergeTiers(
  current: Record<string, TierStatus>,
  update: Record<string, TierStatus>,
): Record<string, TierStatus> {
  return { ...current, ...update };
}

/** The summary a `sparkls.edit` returned, or undefined if it is not one. */
export function parseEditSummary(result: unknown): EditSummary | undefined {
  if (!isRecord(result) || typeof result.applied !== 'boolean') {
    return undefined;
  }
  const timings: Record<string, number> = {};
  if (isRecord(result.timings_ms)) {
    for (const [key, value] of Object.entries(result.timings_ms)) {
      const ms = num(value);
      if (ms !== undefined) {
        timings[key] = ms;
      }
    }
  }
  const summary: EditSummary = { applied: result.applied, timings_ms: timings };
  if (typeof result.tier === 'string') summary.tier = result.tier;
  if (typeof result.model === 'string') summary.model = result.model;
  if (typeof result.transport === 'string') summary.transport = result.transport;
  if (typeof result.edits === 'number') summary.edits = result.edits;
  if (isRecord(result.error)) {
    summary.error = { code: str(result.error.code, 'error'), message: str(result.error.message, 'unknown error') };
  }
  return summary;
}

/** `182 ms`, `1.4 s`: what a person reads at a glance. */
export function formatMs(ms: number): string {
  if (ms < 1) {
    return '<1 ms';
  }
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** How a tier on WebSocket is served: ` (lanes: one connection)`, ` (a pool of sockets: why)`; nothing for HTTP or an older server. */
function servedBy(t: TierStatus): string {
  switch (t.mode) {
    case 'lanes':
      return ' (lanes: one connection)';
    case 'pool':
      return ` (a pool of sockets${t.lanes_off ? `: ${t.lanes_off}` : ''})`;
    default:
      return '';
  }
}

function tierLine(t: TierStatus): string {
  const where = [t.model, t.host && `at ${t.host}`, t.location && `(${t.location})`].filter(Boolean).join(' ');
  const head = `${t.tier}${where ? `: ${where}` : ''}`;
  switch (t.state) {
    case 'idle':
      return `${head} — not connected yet`;
    case 'connecting':
      return `${head} — warming up the connection`;
    case 'ready':
      return `${head} — ready over ${t.transport || 'websocket'}${servedBy(t)}`;
    case 'degraded':
      return `${head} — degraded to HTTP${t.reason ? `: ${t.reason}` : ''}`;
    case 'failing':
      return `${head} — failing${t.reason ? `: ${t.reason}` : ''}`;
    default:
      return `${head} — ${t.state}${t.reason ? `: ${t.reason}` : ''}`;
  }
}

function lastRequestLine(last: LastRequest): string {
  const wait = last.wait_ms !== null ? `${formatMs(last.wait_ms)} waiting, ` : '';
  const how = [last.transport, last.mode !== last.transport && last.mode].filter(Boolean).join(', ');
  return `  last request: ${wait}${formatMs(last.ttft_ms)} to first token, ${formatMs(last.stream_ms)} streaming${how ? ` (${how})` : ''}`;
}

function wastedLine(tokens: number): string {
  const n = Math.round(tokens).toLocaleString('en-US');
  return `  wasted: ${n} output token${tokens === 1 ? '' : 's'} of cancelled responses (streamed on and dropped)`;
}

const TIMING_PARTS = ['context', 'model', 'edit', 'apply'];

function lastEditLine(edit: EditSummary): string {
  if (edit.error) {
    return `Last edit failed: ${edit.error.message}`;
  }
  const total = edit.timings_ms.total;
  const parts = TIMING_PARTS.filter((k) => edit.timings_ms[k] !== undefined).map(
    (k) => `${k} ${formatMs(edit.timings_ms[k]!)}`,
  );
  const how = [edit.tier && `${edit.tier} tier`, edit.transport && `over ${edit.transport}`].filter(Boolean).join(' ');
  const outcome = edit.applied ? '' : ', no change';
  const timing = total !== undefined ? formatMs(total) : 'done';
  return `Last edit: ${timing}${parts.length ? ` (${parts.join(', ')})` : ''}${how ? `, ${how}` : ''}${outcome}`;
}

const TIER_ORDER = ['fast', 'deep'];

function tierRank(name: string): number {
  const rank = TIER_ORDER.indexOf(name);
  return rank < 0 ? TIER_ORDER.length : rank;
}

/**
 * Where requests go, for the headline: ` (local)` when every tier that said is on this
 * machine, ` (fast local, deep remote)` when they differ, nothing when all are remote
 * (the usual case) or none said.
 */
export function locationLabel(tiers: Record<string, TierStatus>): string {
  const known = Object.values(tiers)
    .filter((t) => t.location === 'local' || t.location === 'remote')
    .sort((a, b) => tierRank(a.tier) - tierRank(b.tier) || a.tier.localeCompare(b.tier));
  if (known.every((t) => t.location === 'remote')) {
    return '';
  }
  if (known.every((t) => t.location === 'local')) {
    return ' (local)';
  }
  return ` (${known.map((t) => `${t.tier} ${t.location}`).join(', ')})`;
}

/** The tier the headline follows: the fast one (edits and completions), else any. */
function headlineTier(tiers: Record<string, TierStatus>): TierStatus | undefined {
  return tiers.fast ?? Object.values(tiers)[0];
}

export function statusView(s: StatusSnapshot): StatusView {
  const footer = 'Click to show the logs.';
  if (s.server === 'starting') {
    return { text: '$(loading~spin) Spark', tooltip: `Starting the sparkls server…\n${footer}`, severity: 'normal' };
  }
  if (s.server === 'stopped') {
    return s.serverError
      ? { text: '$(error) Spark: stopped', tooltip: `The sparkls server stopped: ${s.serverError}\n${footer}`, severity: 'error' }
      : { text: '$(circle-slash) Spark', tooltip: `The sparkls server is not running.\n${footer}`, severity: 'normal' };
  }
  const lines = ['Spark (sparkls)'];
  for (const tier of Object.values(s.tiers)) {
    lines.push(tierLine(tier));
    if (tier.last) {
      lines.push(lastRequestLine(tier.last));
    }
    if (tier.wasted_tokens > 0) {
      lines.push(wastedLine(tier.wasted_tokens));
    }
  }
  if (s.lastEdit) {
    lines.push(lastEditLine(s.lastEdit));
  }
  lines.push(footer);
  const tooltip = lines.join('\n');
  const latency =
    s.lastEdit && !s.lastEdit.error && s.lastEdit.timings_ms.total !== undefined
      ? ` ${formatMs(s.lastEdit.timings_ms.total)}`
      : '';
  const tier = headlineTier(s.tiers);
  const where = locationLabel(s.tiers);
  switch (tier?.state) {
    case 'connecting':
      return { text: `$(sync~spin) Spark${where}: warming`, tooltip, severity: 'normal' };
    case 'degraded':
      return { text: `$(warning) Spark${where}: HTTP${latency}`, tooltip, severity: 'warning' };
    case 'failing':
      return { text: `$(error) Spark${where}: failing`, tooltip, severity: 'error' };
    default:
      return { text: `$(zap) Spark${where}${latency}`, tooltip, severity: 'normal' };
  }
}
