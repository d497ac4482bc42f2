/**
 * The governed OpenAI-compatible server: Fastify in front of the clients. `listen` binds, `drain`
 * stops accepting and lets the calls in flight finish within a grace (then aborts them), and
 * closes the clients so their telemetry is flushed.
 */
import { isIP } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import type { EnvRecord, GatewaySubscriber } from '@pgw/client';
import { ApiKeys } from './api-keys.js';
import { streamContextSubscriber } from './call-context.js';
import { errorBody, httpFailure, retryAfterSeconds } from './http-errors.js';
import { ServerMetrics } from './metrics.js';
import { registerRoutes } from './routes.js';
import { ScopeClients } from './scope-clients.js';
import { loadServerSettings, type ServerSettings } from './server-settings.js';

const BYTES_PER_MB = 1024 * 1024;
const IDLE_SWEEP_MS = 100;

export interface GatewayServerOptions {
  /** Where every key is read (`PGW_SERVER__…` and the scopes' own); default `process.env`. */
  env?: EnvRecord;
  /** Listeners of every client's events, besides the server's metrics. */
  subscribers?: readonly GatewaySubscriber[];
  /** Non-fatal warnings; default `console.warn`. */
  warn?: (message: string) => void;
}

export interface ListenOptions {
  host?: string;
  port?: number;
  /** Bind a non-loopback address although no API key is configured. */
  allowUnauthenticated?: boolean;
}

export class GatewayServer {
  readonly settings: ServerSettings;
  readonly app: FastifyInstance;
  readonly #clients: ScopeClients;
  readonly #inflight = new Set<AbortController>();
  #draining: Promise<void> | undefined;

  constructor(options: GatewayServerOptions = {}) {
    const env = options.env ?? process.env;
    const warn = options.warn ?? ((message: string) => console.warn(message));
    this.settings = loadServerSettings(env);
    const metrics = new ServerMetrics();
    this.#clients = new ScopeClients({
      env,
      models: this.settings.models,
      subscribers: [metrics.subscriber, streamContextSubscriber, ...(options.subscribers ?? [])],
      warn,
    });
    this.app = Fastify({ logger: false, bodyLimit: Math.floor(this.settings.maxRequestMb * BYTES_PER_MB), return503OnClosing: true });
    this.app.setErrorHandler((error, _request, reply) => {
      const failure = httpFailure(error);
      if (failure.retryAfterMs !== undefined) reply.header('retry-after', retryAfterSeconds(failure.retryAfterMs));
      if (failure.headers) reply.headers(failure.headers);
      return reply.code(failure.status).send(errorBody(failure));
    });
    this.app.setNotFoundHandler((request, reply) =>
      reply.code(404).send(errorBody({ status: 404, type: 'invalid_request_error', code: 'not_found', param: null, message: `No route ${request.method} ${request.url}` })),
    );
    registerRoutes(this.app, {
      clients: this.#clients,
      keys: new ApiKeys(this.settings.keys),
      metrics,
      inflight: this.#inflight,
      draining: () => this.#draining !== undefined,
    });
  }

  /** Binds and returns the base URL. Without API keys only a loopback address may be bound, unless `allowUnauthenticated`. */
  async listen({ host = '127.0.0.1', port = 8787, allowUnauthenticated = false }: ListenOptions = {}): Promise<string> {
    if (this.settings.keys.size === 0 && !allowUnauthenticated && !isLoopback(host)) {
      throw new RangeError(`no API key is configured (PGW_SERVER__KEYS): refusing to bind ${host}, which is not loopback; set keys or allow unauthenticated access explicitly`);
    }
    await this.app.listen({ host, port });
    const address = this.app.server.address();
    const bound = typeof address === 'object' && address !== null ? address.port : port;
    return `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
  }

  /** Requests being served (the drain waits for them). */
  get inflight(): number {
    return this.#inflight.size;
  }

  /**
   * Stops accepting, waits up to `graceMs` (default `PGW_SERVER__DRAIN_S`) for the calls in flight,
   * aborts those still running, then closes the clients (flushing telemetry). Idempotent.
   */
  drain(graceMs = this.settings.drainMs): Promise<void> {
    this.#draining ??= this.#drain(graceMs);
    return this.#draining;
  }

  async #drain(graceMs: number): Promise<void> {
    const closed = this.app.close();
    // A keep-alive socket whose answer went out during the drain turns idle afterwards: close those as they appear.
    const idleSweep = setInterval(() => this.app.server.closeIdleConnections(), IDLE_SWEEP_MS);
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    try {
      await Promise.race([closed, graceOver]);
    } finally {
      clearTimeout(timer);
      clearInterval(idleSweep);
    }
    for (const controller of this.#inflight) controller.abort(new Error('the server is shutting down'));
    this.app.server.closeAllConnections();
    await closed;
    await this.#clients.close();
  }
}

function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}
