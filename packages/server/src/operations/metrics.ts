/**
 * The server's `/metrics` (one prom-client registry per server, and tallies of its own for what every
 * request updates: tally.ts): a GatewaySubscriber of every client
 * it builds, counting what the events say (calls, attempts, errors by type, latencies, cost, tokens,
 * breaker states), plus the requests in flight and, per tenant and priority class, the requests by
 * outcome and their wait for admission, and the MCP tool calls by server, tool and outcome. Labels are bounded sets (scopes, sources, statuses, error class
 * names, the protocol of the route a call came in by, and tenants through TenantLabels): never a key.
 */
import type { AttemptEndEvent, BreakerStateEvent, CallEndEvent, GatewaySubscriber } from '@pgw/client';
import type { BreakerState, Priority } from '@pgw/core';
import { Counter, Gauge, Registry } from 'prom-client';
import { CounterTally, HistogramTally } from './tally.js';
import { TenantLabels } from './tenant-labels.js';

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const BREAKER_VALUE: Record<BreakerState, number> = { closed: 0, half_open: 1, open: 2 };

/** The `protocol` label of a call, by the route the server put in its `meta`. */
const PROTOCOL_OF_ROUTE: Readonly<Record<string, string>> = {
  '/v1/chat/completions': 'chat_completions',
  '/v1/responses': 'responses',
  '/v1/messages': 'messages',
  '/v1/embeddings': 'embeddings',
};

/** How a governed request ended, by the class of its answer. */
export const REQUEST_OUTCOMES = ['ok', 'rate_limited', 'rejected', 'failed', 'cancelled'] as const;
export type RequestOutcome = (typeof REQUEST_OUTCOMES)[number];

export function outcomeOfStatus(status: number): RequestOutcome {
  if (status < 400) return 'ok';
  if (status === 429) return 'rate_limited';
  return status < 500 ? 'rejected' : 'failed';
}

export class ServerMetrics {
  // A registry of its own: two servers in one process (tests, an embedding app) never share counts.
  readonly #registry = new Registry();
  // Updated per request: tallies (tally.ts), written after the registry's metrics.
  readonly #calls = new CounterTally('pgw_calls_total', 'Logical calls by scope, operation, protocol and status (ok, error, cancelled).', ['scope', 'operation', 'protocol', 'status']);
  readonly #errors = new CounterTally('pgw_call_errors_total', 'Failed logical calls by scope, protocol and error class.', ['scope', 'operation', 'protocol', 'type']);
  readonly #callSeconds = new HistogramTally('pgw_call_duration_seconds', 'Logical call latency, admission and retries included.', ['scope', 'operation', 'protocol'], SECONDS);
  readonly #attempts = new CounterTally('pgw_attempts_total', 'Upstream attempts by scope, source and outcome.', ['scope', 'source', 'outcome']);
  readonly #attemptSeconds = new HistogramTally('pgw_attempt_duration_seconds', 'Upstream attempt latency by scope and source.', ['scope', 'source'], SECONDS);
  readonly #cost = new CounterTally('pgw_cost_usd_total', 'Cost of the successful calls, in USD.', ['scope']);
  readonly #tokens = new CounterTally('pgw_tokens_total', 'Tokens of the successful calls by kind (prompt, completion).', ['scope', 'kind']);
  readonly #breakers = new Gauge({ name: 'pgw_breaker_state', help: 'Breaker state per source as this process saw it: 0 closed, 1 half open, 2 open.', labelNames: ['scope', 'source'], registers: [this.#registry] });
  readonly #inflight = new Gauge({ name: 'pgw_server_requests_in_flight', help: 'HTTP requests being served.', registers: [this.#registry] });
  readonly #tenantRequests = new CounterTally('pgw_tenant_requests_total', 'Governed requests by tenant (the busiest by name, the rest as other), priority class and outcome.', ['tenant', 'priority', 'outcome']);
  readonly #tenantWait = new HistogramTally('pgw_tenant_admission_wait_seconds', 'Time from a governed request to its first upstream attempt (quotas and the scope’s line), by tenant and priority class.', ['tenant', 'priority'], SECONDS);
  readonly #tallies = [this.#calls, this.#errors, this.#callSeconds, this.#attempts, this.#attemptSeconds, this.#cost, this.#tokens, this.#tenantRequests, this.#tenantWait];
  readonly #mcpCalls = new Counter({ name: 'pgw_mcp_tool_calls_total', help: 'MCP tool calls through /mcp by upstream server, tool and outcome (ok, tool_error, failed, cancelled).', labelNames: ['server', 'tool', 'outcome'], registers: [this.#registry] });
  readonly #tenants: TenantLabels;

  readonly subscriber: GatewaySubscriber = {
    onCallEnd: (event: CallEndEvent) => {
      const { scope, operation, meta } = event.call;
      const protocol = PROTOCOL_OF_ROUTE[String(meta?.['route'])] ?? 'other';
      this.#calls.inc([scope, operation, protocol, event.status]);
      this.#callSeconds.observe([scope, operation, protocol], event.totalLatencyMs / 1000);
      if (event.status === 'error') this.#errors.inc([scope, operation, protocol, errorType(event.error)]);
      const result = event.result;
      if (result?.costUsd !== undefined) this.#cost.inc([scope], result.costUsd);
      if (result?.usage) {
        this.#tokens.inc([scope, 'prompt'], result.usage.promptTokens);
        this.#tokens.inc([scope, 'completion'], result.usage.completionTokens);
      }
    },
    onAttemptEnd: (event: AttemptEndEvent) => {
      const { call, source } = event;
      this.#attempts.inc([call.scope, source, event.outcome]);
      this.#attemptSeconds.observe([call.scope, source], event.latencyMs / 1000);
    },
    onBreakerStateChange: (event: BreakerStateEvent) => {
      this.#breakers.set({ scope: event.scope, source: event.source }, BREAKER_VALUE[event.to]);
    },
  };

  /** `tenantLabels`: how many of the busiest tenants keep their name in the labels (PGW_SERVER__METRICS_TENANTS). */
  constructor(tenantLabels: number) {
    this.#inflight.set(0);
    this.#tenants = new TenantLabels(tenantLabels, (tenant) => this.#forget(tenant));
  }

  /** One MCP tool call ended (its server and tool are the configured ones: a refused name never gets here). */
  mcpToolCall(server: string, tool: string, outcome: string): void {
    this.#mcpCalls.inc({ server, tool, outcome });
  }

  /** One governed request ended; `waitMs` is undefined when no attempt started (a cache hit, a refusal). */
  tenantRequest(tenantId: string, priority: Priority, outcome: RequestOutcome, waitMs: number | undefined): void {
    const tenant = this.#tenants.labelOf(tenantId);
    this.#tenantRequests.inc([tenant, priority, outcome]);
    if (waitMs !== undefined) this.#tenantWait.observe([tenant, priority], waitMs / 1000);
  }

  // A displaced tenant's series go: otherwise each tenant ever named would stay in the scrape.
  #forget(tenant: string): void {
    this.#tenantWait.removeWhere('tenant', tenant);
    this.#tenantRequests.removeWhere('tenant', tenant);
  }

  requestStarted(): void {
    this.#inflight.inc();
  }

  requestEnded(): void {
    this.#inflight.dec();
  }

  get contentType(): string {
    return this.#registry.contentType;
  }

  async text(): Promise<string> {
    return [await this.#registry.metrics(), ...this.#tallies.map((tally) => tally.text())].join('\n');
  }
}

/** The error's class name (`GatewayUnavailableError`, …): a bounded label, unlike its message. */
export function errorType(error: unknown): string {
  return error instanceof Error ? error.name : 'unknown';
}
