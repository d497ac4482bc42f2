import { withCallDeadline } from '@pgw/core/internal';
import type { Middleware } from './compose.js';
import { callerSignal, withSignal } from './context.js';

/**
 * The call deadline (docs/architecture.md#call-deadline), placed just inside the call-events layer: everything below it —
 * user middleware, cache IO, admission, backoff, attempts, structured re-asks, embedding batches — shares ONE deadline,
 * while the call's end (and its terminal row) is emitted outside it and sees `CallDeadlineExceeded` itself.
 * `ctx.callDeadlineMs` undefined = off: no timer at all.
 */
export function callDeadlineBoundary<Req, Res>(): Middleware<Req, Res> {
  return (call, next) => {
    const { ctx } = call;
    if (ctx.callDeadlineMs === undefined) return next(call);
    return withCallDeadline(
      (signal) => next(signal ? { request: call.request, ctx: withSignal(ctx, signal) } : call),
      { deadlineMs: ctx.callDeadlineMs, scope: ctx.scope, signal: callerSignal(ctx) },
    );
  };
}
