/**
 * The upstream MCP servers (`PGW_MCP__SERVERS`: inline JSON or the path of a file holding it) and
 * their limits (`PGW_MCP__<SERVER>__RPM`, `__MAX_CONCURRENCY`, `__TIMEOUT_S`; per tool in the entry's
 * `tools`). Checked strictly: a problem is a SettingsError naming the key, the server and the field,
 * never a value (headers and env values may be secrets).
 */
import { readFileSync } from 'node:fs';
import { SettingsError, type EnvRecord } from '@pgw/client';
import { z } from 'zod';

export interface McpToolPolicy {
  readonly rpm: number;
  readonly maxConcurrency: number;
  /** The operator marks the tool safe to retry (besides the server's own `idempotentHint`). */
  readonly idempotent: boolean;
}

export type McpTransportSettings =
  | { readonly kind: 'stdio'; readonly command: string; readonly args: readonly string[]; readonly env: Readonly<Record<string, string>> }
  | { readonly kind: 'http'; readonly url: URL; readonly headers: Readonly<Record<string, string>> };

export interface McpServerSettings {
  readonly name: string;
  readonly transport: McpTransportSettings;
  /** The server's own limits (0 = none) and the deadline of each of its calls. */
  readonly rpm: number;
  readonly maxConcurrency: number;
  readonly timeoutMs: number;
  /** Tools with limits or an idempotency mark of their own, by the upstream's tool name. */
  readonly tools: ReadonlyMap<string, McpToolPolicy>;
}

export interface McpSettings {
  readonly servers: ReadonlyMap<string, McpServerSettings>;
  /** `PGW_MCP__LOG_ARGUMENTS=on`: a tool call's telemetry row carries its arguments and result. */
  readonly logArguments: boolean;
  /** A session with no request or stream open for this long is ended (`PGW_MCP__SESSION_IDLE_S`). */
  readonly sessionIdleMs: number;
  /** Sessions held at once (`PGW_MCP__MAX_SESSIONS`, 0 = no bound); a new one beyond ends the longest idle. */
  readonly maxSessions: number;
}

export const SERVERS_KEY = 'PGW_MCP__SERVERS';
export const MCP_PREFIX = 'PGW_MCP__';
export const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_SESSION_IDLE_S = 1800;
const DEFAULT_MAX_SESSIONS = 1000;
const MAX_SERVERS = 64;
const MAX_TOOLS = 1000;
/** Env keys of the MCP scope itself: no server may be named so that its keys read as these. */
const RESERVED = new Set(['servers', 'tenant', 'tenants', 'breaker', 'log_arguments', 'session_idle_s', 'max_sessions', 'source']);
/** `<server>__<tool>` is how the door names a tool: a server's name never holds `__`. */
export const SERVER_NAME = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

const text = (max: number) => z.string().min(1).max(max);
const toolPolicy = z.strictObject({ rpm: z.int().min(0).optional(), maxConcurrency: z.int().min(0).optional(), idempotent: z.boolean().optional() });
const common = { tools: z.record(text(256), toolPolicy).optional(), idempotent: z.array(text(256)).max(MAX_TOOLS).optional() };
const stdioEntry = z.strictObject({
  command: text(4096),
  args: z.array(z.string().max(4096)).max(256).optional(),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string().max(65_536)).optional(),
  ...common,
});
const httpEntry = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/), z.string().regex(/^[\t\x20-\x7e\x80-\xff]*$/).max(8192)).optional(),
  ...common,
});
// The fields' problems, said without their values.
const FIELD_PROBLEM: Readonly<Record<string, string>> = {
  command: 'must be the program to run (a non-empty string)',
  args: 'must be a list of strings',
  env: 'must be an object of environment variables (names of letters, digits and _) to strings',
  url: 'must be an http or https URL',
  headers: 'must be an object of HTTP header names to header values',
  tools: 'must be an object of tool names to { "rpm"?, "maxConcurrency"?, "idempotent"? } (counts ≥ 0, a boolean)',
  idempotent: 'must be a list of tool names',
};

export function readMcpSettings(env: EnvRecord): McpSettings {
  const raw = env[SERVERS_KEY]?.trim();
  // What the endpoint itself reads, servers or none.
  const endpoint = {
    logArguments: readSwitch(env, `${MCP_PREFIX}LOG_ARGUMENTS`),
    sessionIdleMs: readNumber(env, `${MCP_PREFIX}SESSION_IDLE_S`, DEFAULT_SESSION_IDLE_S, false) * 1000,
    maxSessions: readNumber(env, `${MCP_PREFIX}MAX_SESSIONS`, DEFAULT_MAX_SESSIONS, true) || Number.POSITIVE_INFINITY,
  };
  if (raw === undefined || raw === '') return { servers: new Map(), ...endpoint };
  const table = parseTable(raw.startsWith('{') ? raw : readTableFile(raw));
  return { servers: new Map(Object.entries(table).map(([name, entry]) => [name, serverOf(name, entry, env)])), ...endpoint };
}

function readTableFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    throw new SettingsError({ key: SERVERS_KEY, problem: 'is neither a JSON object nor the path of a readable file' });
  }
}

function parseTable(json: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new SettingsError({ key: SERVERS_KEY, problem: 'must be a JSON object { "<server>": { "command", "args"?, "env"? } | { "url", "headers"? } }' });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new SettingsError({ key: SERVERS_KEY, problem: 'must be a JSON object of server names to entries' });
  const names = Object.keys(value);
  if (names.length > MAX_SERVERS) throw new SettingsError({ key: SERVERS_KEY, problem: `names more than ${MAX_SERVERS} servers` });
  for (const name of names) {
    if (!SERVER_NAME.test(name) || name.length > 32 || RESERVED.has(name)) {
      throw new SettingsError({ key: SERVERS_KEY, problem: `server "${name.slice(0, 40)}" must be named by lower-case letters and digits, words joined by a single _ (at most 32 characters; not ${[...RESERVED].join(', ')})` });
    }
  }
  return value as Record<string, unknown>;
}

function serverOf(name: string, entry: unknown, env: EnvRecord): McpServerSettings {
  const where = `server "${name}"`;
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry) || ('command' in entry) === ('url' in entry)) {
    throw new SettingsError({ key: SERVERS_KEY, problem: `${where} must be either { "command", "args"?, "env"? } (stdio) or { "url", "headers"? } (Streamable HTTP)` });
  }
  const parsed = ('command' in entry ? stdioEntry : httpEntry).safeParse(entry);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path[0];
    const problem = issue.code === 'unrecognized_keys' || typeof field !== 'string' ? `may hold only ${Object.keys(('command' in entry ? stdioEntry : httpEntry).shape).join(', ')}` : `"${field}" ${FIELD_PROBLEM[field]}`;
    throw new SettingsError({ key: SERVERS_KEY, problem: `${where} ${problem}` });
  }
  const data = parsed.data;
  const transport: McpTransportSettings =
    'command' in data ? { kind: 'stdio', command: data.command, args: data.args ?? [], env: data.env ?? {} } : { kind: 'http', url: new URL(data.url), headers: data.headers ?? {} };
  const operatorList = new Set(data.idempotent ?? []);
  const toolNames = new Set([...Object.keys(data.tools ?? {}), ...operatorList]);
  if (toolNames.size > MAX_TOOLS) throw new SettingsError({ key: SERVERS_KEY, problem: `${where} names more than ${MAX_TOOLS} tools` });
  const tools = new Map(
    [...toolNames].map((tool) => {
      const policy = data.tools?.[tool];
      return [tool, { rpm: policy?.rpm ?? 0, maxConcurrency: policy?.maxConcurrency ?? 0, idempotent: policy?.idempotent ?? operatorList.has(tool) }];
    }),
  );
  const keyOf = (suffix: string) => `${MCP_PREFIX}${name.toUpperCase()}__${suffix}`;
  const timeoutS = readNumber(env, keyOf('TIMEOUT_S'), DEFAULT_TIMEOUT_MS / 1000, false);
  return { name, transport, rpm: readNumber(env, keyOf('RPM'), 0, true), maxConcurrency: readNumber(env, keyOf('MAX_CONCURRENCY'), 0, true), timeoutMs: timeoutS * 1000, tools };
}

/** A count (`integer`: ≥ 0, whole) or a positive number of seconds; unset = `fallback`. */
function readNumber(env: EnvRecord, key: string, fallback: number, integer: boolean): number {
  const raw = env[key]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  const ok = integer ? Number.isInteger(value) && value >= 0 : Number.isFinite(value) && value > 0 && value <= 86_400;
  if (!ok) throw new SettingsError({ key, problem: integer ? 'must be a whole number ≥ 0 (0 = no limit)' : 'must be a number of seconds > 0 and ≤ 86400' });
  return value;
}

function readSwitch(env: EnvRecord, key: string): boolean {
  const raw = env[key]?.trim().toLowerCase();
  if (raw === undefined || raw === '' || raw === 'off') return false;
  if (raw === 'on') return true;
  throw new SettingsError({ key, problem: 'must be on or off' });
}
