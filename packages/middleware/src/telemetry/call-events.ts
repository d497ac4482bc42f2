import { PolyGatewayError, type CallResultSummary, type CallStats, type Clock } from '@pgw/core';
import type { Middleware } from '../pipeline/compose.js';
import { callStats, claimTerminal, type CallContext } from '../pipeline/context.js';
import type { EventHub } from './event-hub.js';

/**
 * The outermost layer of every onion: emits the call's start and end events, and on success stamps
 * the call's final stats on the response (`finalize`). The end of a failed call is emitted once
 * (claimed in the call's ledger), however many of these layers are nested; the error is rethrown
 * unchanged. `models` are the scope's distinct model ids, computed once per pipeline.
 */
export function callEventsMiddleware<Req, Res>(options: {
  events: EventHub;
  now: Clock;
  models: readonly string[];
  summarize: (response: Res) => CallResultSummary;
  finalize?: (response: Res, stats: CallStats) => Res;
}): Middleware<Req, Res> {
  const { events, now, models, summarize, finalize = (response) => response } = options;
  // Nobody listens to the call's start or end (no telemetry rows, no subscriber): only the final
  // stats are stamped on the response.
  if (!events.on.onCallStart && !events.on.onCallEnd) {
    return (call, next) => next(call).then((response) => finalize(response, callStats(call.ctx, now)));
  }
  const succeeded = (ctx: CallContext, response: Res): Res => {
    const stats = callStats(ctx, now);
    if (events.on.onCallEnd) {
      events.emit('onCallEnd', {
        call: ctx,
        status: 'ok',
        attempts: stats.attempts,
        totalLatencyMs: stats.totalLatencyMs,
        sourcesTried: stats.sourcesTried,
        result: summarize(response),
      });
    }
    return finalize(response, stats);
  };
  const failed = (ctx: CallContext, error: unknown): never => {
    if (claimTerminal(ctx) && events.on.onCallEnd) {
      const stats = callStats(ctx, now);
      // A caller's abort is a cancellation; a library verdict (deadline, unavailable, …) is an error.
      const cancelled = ctx.signal.aborted && !(error instanceof PolyGatewayError);
      events.emit('onCallEnd', {
        call: ctx,
        status: cancelled ? 'cancelled' : 'error',
        error,
        attempts: stats.attempts,
        totalLatencyMs: stats.totalLatencyMs,
        sourcesTried: stats.sourcesTried,
      });
    }
    throw error;
  };
  // Promise handlers rather than an async function (docs/decisions.md#lean-hot-path).
  return (call, next) => {
    const { ctx } = call;
    if (events.on.onCallStart) events.emit('onCallStart', { call: ctx, models });
    let running: Promise<Res>;
    try {
      running = next(call);
    } catch (error) {
      running = Promise.reject(error);
    }
    return running.then(
      (response) => succeeded(ctx, response),
      (error: unknown) => failed(ctx, error),
    );
  };
}
