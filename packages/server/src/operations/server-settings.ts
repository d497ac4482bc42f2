/**
 * The server's own keys (`PGW_SERVER__…`), read through the clients' settings path: each key parsed
 * by its kind, then one zod schema, so a malformed value is a SettingsError naming the key. The API
 * keys are read by `readApiKeys` (inline JSON or a file), the console's admin keys and the metrics keys by `readOperatorKeys`; neither is ever echoed.
 */
import { readBatchSettings, type BatchSettings } from '@pgw/batch';
import { SETTINGS_DEFAULTS, settingsFromEnv, type EnvKey, type EnvRecord } from '@pgw/client';
import { z } from 'zod';
import { readOperatorKeys, type OperatorKeys } from '../door/admin-keys.js';
import { readApiKeys, type KeyTable } from '../door/api-keys.js';
import { parseListenAddress, type ListenAddress } from './metrics-listener.js';
import { readKeyStoreSettings, type KeyStoreSettings } from '../keys/key-store-settings.js';
import { HOSTED_TOOL_POLICIES, type HostedToolPolicy } from '@pgw/wire';

export interface ServerSettings {
  /** Model name → scope; undefined = every chat model is scope LLM and every embedding model scope EMBED. */
  models?: ReadonlyMap<string, string>;
  /** API key → tenant id; empty = no authentication. */
  keys: KeyTable;
  /** Where the keys came from: a file is read again on `reloadKeys` (SIGHUP). */
  keysFile?: string;
  /** The keys that open the console at `/ui` (`PGW_SERVER__ADMIN_KEYS`), kept as digests; none = see the console's access rule. */
  adminKeys: OperatorKeys;
  /** Keys that open `/metrics` (besides the admin keys) on a server with keys. */
  metricsKeys: OperatorKeys;
  /** Where `/metrics` is also served, open, on a listener of its own (`PGW_SERVER__METRICS_ADDR`). */
  metricsAddr?: ListenAddress;
  /** How long a console login lasts. */
  consoleSessionMs: number;
  drainMs: number;
  maxRequestMb: number;
  /** The whole request (headers and body) must arrive within this. */
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
  /** A stream whose reader has not taken its bytes for this long is ended and its call cancelled. */
  writeStallMs: number;
  /** An SSE comment line this often while a stream is open, also before its first token. */
  sseHeartbeatMs: number;
  /** How long a stored response (`store` not false) can be continued, read or deleted. */
  responsesTtlMs: number;
  accessLog: boolean;
  /** What a Responses request's hosted tool (web search, …) gets: dropped and named in `x-pgw-dropped-tools`, or a 400. */
  hostedTools: HostedToolPolicy;
  /** How many of the busiest tenants keep their name in the metrics' `tenant` label; the rest are `other`. */
  metricsTenants: number;
  /** Bound on one uploaded file (`POST /v1/files`), MiB. */
  maxFileMb: number;
  /** Where the batches and their files live (`PGW_BATCH__…`, read by @pgw/batch as `pgw batch` reads them): the embedded SQLite file, or BullMQ on Redis with PostgreSQL. */
  batchEngine: BatchSettings;
  /** Where the keys kept as data live (`PGW_KEYS__…`): off, the embedded SQLite file, or a fleet's PostgreSQL. */
  keyStore: KeyStoreSettings;
}

export const SERVER_DEFAULTS = {
  drainS: 30,
  maxRequestMb: SETTINGS_DEFAULTS.maxRequestMb,
  requestTimeoutS: 60,
  headersTimeoutS: 10,
  keepAliveTimeoutS: 5,
  maxConnections: 4096,
  writeStallS: 30,
  sseHeartbeatS: 15,
  responsesTtlS: 3600,
  metricsTenants: 20,
  consoleSessionS: 8 * 3600,
  maxFileMb: 100,
} as const;

const SCOPE = /^[A-Za-z][A-Za-z0-9_]*$/;
const KEYS: readonly EnvKey[] = [
  { key: 'PGW_SERVER__MODELS', field: 'models', parse: 'json' },
  { key: 'PGW_SERVER__KEYS', field: 'keys', parse: 'text' },
  { key: 'PGW_SERVER__ADMIN_KEYS', field: 'adminKeys', parse: 'text' },
  { key: 'PGW_SERVER__METRICS_KEYS', field: 'metricsKeys', parse: 'text' },
  { key: 'PGW_SERVER__METRICS_ADDR', field: 'metricsAddr', parse: 'text' },
  { key: 'PGW_SERVER__CONSOLE_SESSION_S', field: 'consoleSessionMs', parse: 'seconds' },
  { key: 'PGW_SERVER__DRAIN_S', field: 'drainMs', parse: 'seconds' },
  { key: 'PGW_SERVER__MAX_REQUEST_MB', field: 'maxRequestMb', parse: 'number' },
  { key: 'PGW_SERVER__REQUEST_TIMEOUT_S', field: 'requestTimeoutMs', parse: 'seconds' },
  { key: 'PGW_SERVER__HEADERS_TIMEOUT_S', field: 'headersTimeoutMs', parse: 'seconds' },
  { key: 'PGW_SERVER__KEEP_ALIVE_TIMEOUT_S', field: 'keepAliveTimeoutMs', parse: 'seconds' },
  { key: 'PGW_SERVER__MAX_CONNECTIONS', field: 'maxConnections', parse: 'int' },
  { key: 'PGW_SERVER__WRITE_STALL_S', field: 'writeStallMs', parse: 'seconds' },
  { key: 'PGW_SERVER__SSE_HEARTBEAT_S', field: 'sseHeartbeatMs', parse: 'seconds' },
  { key: 'PGW_SERVER__RESPONSES_TTL_S', field: 'responsesTtlMs', parse: 'seconds' },
  { key: 'PGW_SERVER__ACCESS_LOG', field: 'accessLog', parse: 'bool' },
  { key: 'PGW_SERVER__HOSTED_TOOLS', field: 'hostedTools', parse: 'text' },
  { key: 'PGW_SERVER__METRICS_TENANTS', field: 'metricsTenants', parse: 'int' },
  { key: 'PGW_SERVER__MAX_FILE_MB', field: 'maxFileMb', parse: 'number' },
];

const seconds = (fallbackS: number) => z.number().positive('must be > 0').default(fallbackS * 1000);
const schema = z.strictObject({
  models: z
    .record(z.string(), z.unknown())
    .superRefine((map, context) => {
      const entries = Object.entries(map);
      if (entries.length === 0) context.addIssue({ code: 'custom', message: 'must name at least one model' });
      const bad = entries.find(([, scope]) => typeof scope !== 'string' || !SCOPE.test(scope));
      if (bad) context.addIssue({ code: 'custom', message: `model '${bad[0]}' must map to a scope name (letters, digits, _)` });
    })
    .transform((map) => new Map(Object.entries(map).map(([model, scope]) => [model, String(scope).toUpperCase()])))
    .optional(),
  keys: z.string().optional(),
  adminKeys: z.string().optional(),
  metricsKeys: z.string().optional(),
  metricsAddr: z
    .string()
    .transform((text, context) => parseListenAddress(text) ?? (context.addIssue({ code: 'custom', message: 'must be [host]:port, host:port or :port (port ≤ 65535)' }), z.NEVER))
    .optional(),
  consoleSessionMs: seconds(SERVER_DEFAULTS.consoleSessionS),
  drainMs: z.number().nonnegative('must be ≥ 0').default(SERVER_DEFAULTS.drainS * 1000),
  maxRequestMb: z.number().positive('must be > 0').default(SERVER_DEFAULTS.maxRequestMb),
  requestTimeoutMs: seconds(SERVER_DEFAULTS.requestTimeoutS),
  headersTimeoutMs: seconds(SERVER_DEFAULTS.headersTimeoutS),
  keepAliveTimeoutMs: seconds(SERVER_DEFAULTS.keepAliveTimeoutS),
  maxConnections: z.number().int('must be a whole number').positive('must be ≥ 1').default(SERVER_DEFAULTS.maxConnections),
  writeStallMs: seconds(SERVER_DEFAULTS.writeStallS),
  sseHeartbeatMs: seconds(SERVER_DEFAULTS.sseHeartbeatS),
  responsesTtlMs: seconds(SERVER_DEFAULTS.responsesTtlS),
  accessLog: z.boolean().default(true),
  hostedTools: z.enum(HOSTED_TOOL_POLICIES, { error: 'must be drop or refuse' }).default('drop'),
  // Each named tenant costs series of every priority and outcome: bounded so a typo cannot undo the bound.
  metricsTenants: z.number().int('must be a whole number').min(0, 'must be ≥ 0').max(1000, 'must be ≤ 1000').default(SERVER_DEFAULTS.metricsTenants),
  maxFileMb: z.number().positive('must be > 0').default(SERVER_DEFAULTS.maxFileMb),
});

export function loadServerSettings(env: EnvRecord): ServerSettings {
  const { keys: raw, adminKeys: rawAdmin, metricsKeys: rawMetrics, metricsAddr, models, ...rest } = settingsFromEnv(env, KEYS, schema);
  const { keys, file } = readApiKeys(raw);
  const adminKeys = readOperatorKeys('PGW_SERVER__ADMIN_KEYS', rawAdmin, keys);
  const metricsKeys = readOperatorKeys('PGW_SERVER__METRICS_KEYS', rawMetrics, keys);
  const batchEngine = readBatchSettings(env);
  const keyStore = readKeyStoreSettings(env, adminKeys.size > 0);
  return { ...rest, ...(models !== undefined && { models }), ...(metricsAddr !== undefined && { metricsAddr }), keys, adminKeys, metricsKeys, batchEngine, keyStore, ...(file !== undefined && { keysFile: file }) };
}
