/**
 * The governed OpenAI-compatible server: Fastify in front of the clients. `listen` binds; `drain`
 * keeps answering for its grace (readiness 503, new calls 503 with `Retry-After`) while the calls in
 * flight finish, ends those left with an error they can tell, then closes the listener and the
 * clients (flushing their telemetry).
 */
import type { Socket } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { openRecordStore, type EnvRecord, type GatewaySubscriber } from '@pgw/client';
import { AccessLog, LineBatch } from './operations/access-log.js';
import { ApiKeys, presentedKey, readKeyFile } from './door/api-keys.js';
import { ConsoleActivity } from './console/activity.js';
import { batchesPanel } from './console/batches.js';
import { ConsoleFeed } from './console/feed.js';
import { registerConsole } from './console/routes.js';
import { ConsoleSessions } from './console/sessions.js';
import { readConsoleState, type ConsolePanel } from './console/state.js';
import { RequestCalls } from './streaming/call-context.js';
import { guardTheDoor, hasKeys, isLoopbackName, requestIdOf } from './door/door.js';
import { replyFailure } from './door/failure-reply.js';
import { errorBody } from '@pgw/wire';
import { failureAnswer, type FailureAnswer } from './door/http-errors.js';
import { InflightCalls } from './door/inflight.js';
import { ServerMetrics } from './operations/metrics.js';
import { MetricsListener } from './operations/metrics-listener.js';
import { ServerDrainingError } from './door/request-error.js';
import { registerRoutes } from './routes/routes.js';
import { ScopeClients } from './scope-clients.js';
import { loadServerSettings, type ServerSettings } from './operations/server-settings.js';
import { StoredResponses } from './routes/stored-responses.js';
import { ServerBatches } from './batches/batches.js';
import { batchStoreSource } from './batches/batch-store.js';
import type { Clock, KeyBounds } from '@pgw/core';
import { isPromise } from '@pgw/core/internal';
import { AdminGate } from './keys/admin-gate.js';
import { registerKeyAdminRoutes } from './keys/admin-routes.js';
import { keyUsage, type KeyUsage } from './keys/key-usage.js';
import { keyPanel } from './keys/key-panel.js';
import { KeyAdmin } from './keys/key-admin.js';
import { openKeyStore } from './keys/key-store-settings.js';
import { StoredKeys } from './keys/stored-keys.js';
import type { McpServerStatus } from './mcp/gateway.js';
import { mcpPanel } from './mcp/panel.js';
import { registerMcpRoutes, type McpEndpoint } from './mcp/route.js';
import { readMcpSettings } from './mcp/settings.js';

const BYTES_PER_MB = 1024 * 1024;
/** The default log, shared by every server of the process so its lines keep their order. */
const stderrLines = new LineBatch((text) => process.stderr.write(text));
const POLL_MS = 50;
/** The drain ends early once nothing is in flight and no request came for this long: the load balancer has let go. */
const DRAIN_QUIET_MS = 1000;
/** How long the calls ended at the grace's end get to send their last event before the sockets close. */
const LAST_WORDS_MS = 1000;

export interface GatewayServerOptions {
  /** Where every key is read (`PGW_SERVER__…` and the scopes' own); default `process.env`. */
  env?: EnvRecord;
  /** Listeners of every client's events, besides the server's metrics. */
  subscribers?: readonly GatewaySubscriber[];
  /** Non-fatal warnings; default `console.warn`. */
  warn?: (message: string) => void;
  /** Where the access log and the server's fault details go, one JSON line each; default stderr. */
  log?: (line: string) => void;
  /** Extra panels of the console at `/ui`, after its own batches panel, read on every refresh. */
  consolePanels?: readonly ConsolePanel[];
  /** The clock of the stored keys (creation, expiry, a rotation's grace) and of the MCP sessions' idle time; default `Date.now`. */
  now?: Clock;
}

export interface ListenOptions {
  host?: string;
  port?: number;
  /** Serve without API keys on any address and for any `Host` (otherwise loopback only). */
  allowUnauthenticated?: boolean;
}

export class GatewayServer {
  readonly settings: ServerSettings;
  readonly app: FastifyInstance;
  readonly #clients: ScopeClients;
  readonly #keys: ApiKeys;
  readonly #storedKeys: StoredKeys | undefined;
  readonly #inflight = new InflightCalls();
  readonly #requestCalls = new RequestCalls();
  readonly #stored: StoredResponses;
  readonly #batches: ServerBatches;
  readonly #warn: (message: string) => void;
  readonly #consoleFeed: ConsoleFeed;
  readonly #metrics: ServerMetrics;
  #mcp: Promise<McpEndpoint> | undefined;
  #metricsListener: MetricsListener | undefined;
  #metricsUrl: string | undefined;
  #openToAnyHost = false;
  #lastArrival = performance.now();
  #draining: Promise<void> | undefined;

  constructor(options: GatewayServerOptions = {}) {
    const env = options.env ?? process.env;
    this.#warn = options.warn ?? ((message: string) => console.warn(message));
    this.settings = loadServerSettings(env);
    this.#keys = new ApiKeys(this.settings.keys);
    const log = new AccessLog(options.log ?? stderrLines.line, this.settings.accessLog);
    const now = options.now ?? Date.now;
    const keyStore = this.settings.keyStore;
    this.#storedKeys = keyStore.store === 'off' ? undefined : new StoredKeys(() => openKeyStore(keyStore), now, (error) => log.fault('keys', error));
    const metrics = new ServerMetrics(this.settings.metricsTenants);
    this.#metrics = metrics;
    const activity = new ConsoleActivity();
    this.#clients = new ScopeClients({
      env,
      models: this.settings.models,
      subscribers: [metrics.subscriber, activity.subscriber, this.#requestCalls.subscriber, ...(options.subscribers ?? [])],
      warn: this.#warn,
    });
    this.#batches = new ServerBatches(batchStoreSource(this.settings.batchEngine), this.#clients, (error) => log.fault('batch', error));
    this.#stored = new StoredResponses(() => openRecordStore({ env, namespace: 'responses' }), this.settings.responsesTtlMs);
    const { requestTimeoutMs, headersTimeoutMs, keepAliveTimeoutMs } = this.settings;
    const headersTimeout = Math.min(headersTimeoutMs, requestTimeoutMs);
    this.app = Fastify({
      logger: false,
      bodyLimit: Math.floor(this.settings.maxRequestMb * BYTES_PER_MB),
      requestTimeout: requestTimeoutMs,
      keepAliveTimeout: keepAliveTimeoutMs,
      // Node checks the timeouts on this beat (30 s by default, which would stretch a 1 s bound to 31 s).
      http: { headersTimeout, connectionsCheckingInterval: Math.max(POLL_MS, Math.min(1000, headersTimeout / 4)) },
      genReqId: requestIdOf,
      frameworkErrors: (error, request, reply) => answer(reply, failureAnswer(error), log, request),
      clientErrorHandler: clientError,
    });
    this.app.server.maxConnections = this.settings.maxConnections;
    this.app.setErrorHandler((error, request, reply) => answer(reply, failureAnswer(error), log, request, error));
    const draining = () => this.#draining !== undefined;
    guardTheDoor(this.app, {
      keys: this.#keys,
      ...(this.#storedKeys !== undefined && { stored: this.#storedKeys }),
      log,
      draining,
      openToAnyHost: () => this.#openToAnyHost,
      onArrival: () => (this.#lastArrival = performance.now()),
    });
    // Read now, so a bad MCP setting stops the server at its start; opened on the first /mcp request.
    const mcpSettings = readMcpSettings(env);
    const mcpPanels = mcpSettings.servers.size === 0 ? [] : [mcpPanel(() => this.mcpStatus(), [...mcpSettings.servers.keys()])];
    const panels = [batchesPanel((limit) => this.#batches.recent(limit)), ...mcpPanels, ...(options.consolePanels ?? [])];
    const usageOf = async (bounds: KeyBounds) => keyUsage(await this.#clients.built(), bounds);
    const keyAdmin = this.#storedKeys && new KeyAdmin(this.#storedKeys, now);
    const stored = this.#storedKeys && keyAdmin && keyPanel({ keys: this.#storedKeys, admin: keyAdmin, now, usageOf });
    const state = () => readConsoleState({ clients: this.#clients, activity, keyTenants: () => this.#keys.tenants(), draining, panels, ...(stored && { keys: stored.keys }) });
    this.#consoleFeed = new ConsoleFeed(state, (error) => log.fault(undefined, error));
    registerConsole(this.app, {
      apiKeys: this.#keys,
      adminKeys: this.settings.adminKeys,
      sessions: new ConsoleSessions(this.settings.consoleSessionMs),
      feed: this.#consoleFeed,
      state,
      draining,
      ...(stored && { revokeKey: stored.revokeKey }),
    });
    if (this.#storedKeys !== undefined && keyAdmin !== undefined) this.#registerKeyAdmin(this.#storedKeys, keyAdmin, now, usageOf);
    if (mcpSettings.servers.size > 0) {
      registerMcpRoutes(this.app, () => {
        // The MCP SDK is loaded with the endpoint; an endpoint that failed to open is tried again by the next request.
        this.#mcp ??= import('./mcp/sessions.js').then(({ openMcpEndpoint }) => openMcpEndpoint(mcpSettings, env, metrics, this.#warn, now));
        this.#mcp.catch(() => (this.#mcp = undefined));
        return this.#mcp;
      });
    }
    registerRoutes(this.app, {
      clients: this.#clients,
      metrics,
      metricsOpenTo: (headers) => this.#metricsOpenTo(headers),
      settings: this.settings,
      inflight: this.#inflight,
      calls: this.#requestCalls,
      stored: this.#stored,
      batches: this.#batches,
      log,
      draining,
    });
  }

  /** The admin API of the stored keys: a tenant's key, static or stored, is refused there by name. */
  #registerKeyAdmin(stored: StoredKeys, admin: KeyAdmin, now: Clock, usageOf: (bounds: KeyBounds) => Promise<KeyUsage>): void {
    const isTenantKey = (key: string) => {
      if (this.#keys.has(key)) return true;
      const policy = stored.policyOf(key);
      return isPromise(policy) ? policy.then((found) => found !== undefined) : policy !== undefined;
    };
    registerKeyAdminRoutes(this.app, { gate: new AdminGate(this.settings.adminKeys, isTenantKey), admin, keys: stored, now, usageOf });
  }

  /** A keyless server without metrics keys serves `/metrics` open (the door keeps it to loopback); otherwise a metrics or an admin key reads it. */
  #metricsOpenTo(headers: FastifyRequest['headers']): boolean {
    const { metricsKeys, adminKeys } = this.settings;
    if (!this.#keyed() && metricsKeys.size === 0) return true;
    const key = presentedKey(headers);
    return key !== undefined && (metricsKeys.admits(key) || adminKeys.admits(key));
  }

  #keyed(): boolean {
    return hasKeys({ keys: this.#keys, ...(this.#storedKeys !== undefined && { stored: this.#storedKeys }) });
  }

  /** Binds and returns the base URL. Without API keys only a loopback address may be bound, unless `allowUnauthenticated`. */
  async listen({ host = '127.0.0.1', port = 8787, allowUnauthenticated = false }: ListenOptions = {}): Promise<string> {
    if (!this.#keyed() && !allowUnauthenticated && !isLoopbackName(host)) {
      throw new RangeError(`no API key is configured (PGW_SERVER__KEYS): refusing to bind ${host}, which is not loopback; set keys or allow unauthenticated access explicitly`);
    }
    this.#openToAnyHost = allowUnauthenticated;
    await this.app.listen({ host, port });
    if (this.settings.metricsAddr !== undefined) {
      try {
        ({ listener: this.#metricsListener, url: this.#metricsUrl } = await MetricsListener.open(this.#metrics, this.settings.metricsAddr));
      } catch (error) {
        // Half a server (the API without its metrics) is not what was asked for.
        await this.app.close();
        throw error;
      }
    }
    // Batches a previous server left unfinished run on, in the background.
    void this.#batches.resumeInBackground();
    const address = this.app.server.address();
    const bound = typeof address === 'object' && address !== null ? address.port : port;
    return `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
  }

  /** The URL of `/metrics` on its own listener (`PGW_SERVER__METRICS_ADDR`) once listening; undefined without one. */
  get metricsUrl(): string | undefined {
    return this.#metricsUrl;
  }

  /** The upstream MCP servers (health, breaker, in flight, waiting here, recent errors); undefined before the first `/mcp` request opened them. */
  async mcpStatus(): Promise<McpServerStatus[] | undefined> {
    return (await this.#mcp?.catch(() => undefined))?.status();
  }

  /** Requests being served (the drain waits for them). */
  get inflight(): number {
    return this.#inflight.size;
  }

  /**
   * Reads the key file again (SIGHUP): a removed key is refused from its next request, calls in flight
   * go on. A file that no longer reads as a key table keeps the keys in force (the problem is warned).
   */
  reloadKeys(): boolean {
    const file = this.settings.keysFile;
    if (file === undefined) return false;
    try {
      this.#keys.replace(readKeyFile(file));
      return true;
    } catch (error) {
      this.#warn(`pgw serve: keys not reloaded, the previous ones stay in force: ${(error as Error).message}`);
      return false;
    }
  }

  /**
   * Drains within `graceMs` (default `PGW_SERVER__DRAIN_S`): the listener keeps answering — `/readyz`
   * 503, new `/v1` calls 503 with `Retry-After` — until the calls in flight have finished and no request
   * came for a second, or the grace is over; calls still running then end with a `draining` error
   * (a stream gets its `error` event). Then the listener and the clients close. Idempotent.
   */
  drain(graceMs = this.settings.drainMs): Promise<void> {
    this.#draining ??= this.#drain(graceMs);
    return this.#draining;
  }

  async #drain(graceMs: number): Promise<void> {
    // The consoles watching hold no call: their streams end now, so they neither keep the drain busy nor the listener open.
    this.#consoleFeed.close();
    const deadline = performance.now() + graceMs;
    const quietMs = Math.min(graceMs, DRAIN_QUIET_MS);
    while (performance.now() < deadline) {
      if (this.#inflight.size === 0 && performance.now() - this.#lastArrival >= quietMs) break;
      await pause(Math.min(POLL_MS, deadline - performance.now()));
    }
    this.#inflight.abortAll(new ServerDrainingError());
    await settledWithin(this.#inflight.idle(), LAST_WORDS_MS);
    const closed = this.app.close();
    this.app.server.closeAllConnections();
    await Promise.all([closed, this.#metricsListener?.close()]);
    // Batches running pause (their items run again when resumed) before their clients close.
    await this.#batches.close().catch(() => undefined);
    // The MCP sessions end, then the upstream servers stop (a stdio server's process exits).
    await Promise.allSettled([this.#clients.close(), this.#stored.close(), this.#storedKeys?.close(), this.#mcp?.then((endpoint) => endpoint.close())]);
  }
}

function answer(reply: FastifyReply, failure: FailureAnswer, log: AccessLog, request: FastifyRequest, error?: unknown): FastifyReply {
  if (failure.internal) log.fault(request.id, error);
  return replyFailure(request, reply, failure);
}

/** What Node's HTTP parser refuses (a timeout, oversized headers, a malformed request), answered in OpenAI's shape. */
function clientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, code, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'request_timeout', 'The request did not arrive within PGW_SERVER__REQUEST_TIMEOUT_S']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'headers_too_large', 'The request headers are too large']
        : [400, 'Bad Request', 'bad_request', 'The request is not valid HTTP'];
  const body = JSON.stringify(errorBody({ status, type: 'invalid_request_error', code, param: null, message }));
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

async function settledWithin(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
