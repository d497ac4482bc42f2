/**
 * The server's `/metrics`: a GatewaySubscriber of every client it builds, counting what the events
 * say (calls, attempts, errors by type, latencies, cost, tokens, breaker states), plus the requests
 * in flight. Labels are bounded sets (scopes, sources, statuses, error class names): never a tenant
 * or a key.
 */
import type { AttemptEndEvent, BreakerState, BreakerStateEvent, CallEndEvent, GatewaySubscriber } from '@pgw/client';
import { Histogram, Series, exposition } from './prometheus.js';

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const BREAKER_VALUE: Record<BreakerState, number> = { closed: 0, half_open: 1, open: 2 };

export class ServerMetrics {
  readonly #calls = new Series('pgw_calls_total', 'Logical calls by scope, operation and status (ok, error, cancelled).', 'counter');
  readonly #errors = new Series('pgw_call_errors_total', 'Failed logical calls by scope and error class.', 'counter');
  readonly #callSeconds = new Histogram('pgw_call_duration_seconds', 'Logical call latency, admission and retries included.', SECONDS);
  readonly #attempts = new Series('pgw_attempts_total', 'Upstream attempts by scope, source and outcome.', 'counter');
  readonly #attemptSeconds = new Histogram('pgw_attempt_duration_seconds', 'Upstream attempt latency by scope and source.', SECONDS);
  readonly #cost = new Series('pgw_cost_usd_total', 'Cost of the successful calls, in USD.', 'counter');
  readonly #tokens = new Series('pgw_tokens_total', 'Tokens of the successful calls by kind (prompt, completion).', 'counter');
  readonly #breakers = new Series('pgw_breaker_state', 'Breaker state per source as this process saw it: 0 closed, 1 half open, 2 open.', 'gauge');
  readonly #inflight = new Series('pgw_server_requests_in_flight', 'HTTP requests being served.', 'gauge');
  #inflightCount = 0;

  readonly subscriber: GatewaySubscriber = {
    onCallEnd: (event: CallEndEvent) => {
      const { scope, operation } = event.call;
      this.#calls.add({ scope, operation, status: event.status });
      this.#callSeconds.observe({ scope, operation }, event.totalLatencyMs / 1000);
      if (event.status === 'error') this.#errors.add({ scope, operation, type: errorType(event.error) });
      const result = event.result;
      if (result?.costUsd !== undefined) this.#cost.add({ scope }, result.costUsd);
      if (result?.usage) {
        this.#tokens.add({ scope, kind: 'prompt' }, result.usage.promptTokens);
        this.#tokens.add({ scope, kind: 'completion' }, result.usage.completionTokens);
      }
    },
    onAttemptEnd: (event: AttemptEndEvent) => {
      const labels = { scope: event.call.scope, source: event.source };
      this.#attempts.add({ ...labels, outcome: event.outcome });
      this.#attemptSeconds.observe(labels, event.latencyMs / 1000);
    },
    onBreakerStateChange: (event: BreakerStateEvent) => {
      this.#breakers.set({ scope: event.scope, source: event.source }, BREAKER_VALUE[event.to]);
    },
  };

  requestStarted(): void {
    this.#inflight.set({}, ++this.#inflightCount);
  }

  requestEnded(): void {
    this.#inflight.set({}, --this.#inflightCount);
  }

  text(): string {
    return exposition([this.#calls, this.#errors, this.#callSeconds, this.#attempts, this.#attemptSeconds, this.#cost, this.#tokens, this.#breakers, this.#inflight]);
  }
}

/** The error's class name (`GatewayUnavailableError`, …): a bounded label, unlike its message. */
function errorType(error: unknown): string {
  return error instanceof Error ? error.name : 'unknown';
}
