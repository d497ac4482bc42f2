import { timeOrderedId } from '../time-ordered-id.js';
import type { CallStats, ChatDelta, Clock, Effort, KeyBounds, Operation, Priority } from '@pgw/core';
import { NEVER_ABORTED } from '@pgw/core/internal';

/** The mutable part of a logical call, shared by every view of its context (see `withSignal`). */
export interface CallLedger {
  /** Attempts registered so far, counted before the transport is called (failed and cancelled count). */
  attempts: number;
  /** Distinct source names, in the order they were first tried. */
  readonly sourcesTried: string[];
  /** Set once the call's terminal_failure row has been claimed: a call never gets two. */
  terminalClaimed: boolean;
}

/** What travels with one logical call through the onion. */
export interface CallContext {
  readonly logicalCallId: string;
  readonly scope: string;
  readonly operation: Operation;
  /** Injected-clock time the logical call started (`totalLatencyMs` reads the same clock). */
  readonly startedAt: number;
  /**
   * Cancellation of this call: the caller's signal, or a signal of its own following it when another
   * call holds the caller's (see `underOwnSignal`); the deadline boundary's signal inside it; or
   * `NEVER_ABORTED` when nothing can cancel it.
   */
  readonly signal: AbortSignal;
  readonly sessionId?: string;
  readonly parentCallId?: string;
  readonly tenantId?: string;
  /** The call's priority class (undefined = interactive). */
  readonly priority?: Priority;
  /** The stored key the call came with: its own gates and budget (docs/architecture.md#keys). */
  readonly key?: KeyBounds;
  readonly meta?: Record<string, unknown>;
  /** The effective reasoning effort, as telemetry reports it. */
  readonly reasoningEffort?: Effort;
  /** Skip the cache read and write (research resampling). */
  readonly cacheBypass: boolean;
  /** Wall-clock bound of the call's waiting; undefined = off (no timer). Enforced by `callDeadlineBoundary`. */
  readonly callDeadlineMs?: number;
  /**
   * Where streamed deltas go (`pipeline.stream`, chatStream). Once content has been forwarded, the call
   * is committed to that attempt: a later failure of it is not retried (StreamInterruptedError).
   */
  readonly onDelta?: (delta: ChatDelta) => void;
  readonly ledger: CallLedger;
}

export interface CallContextInit {
  scope: string;
  operation: Operation;
  now: Clock;
  signal?: AbortSignal;
  logicalCallId?: string;
  sessionId?: string;
  parentCallId?: string;
  tenantId?: string;
  priority?: Priority;
  key?: KeyBounds;
  meta?: Record<string, unknown>;
  reasoningEffort?: Effort;
  cacheBypass?: boolean;
  callDeadlineMs?: number;
  onDelta?: (delta: ChatDelta) => void;
}

/** What the caller of one logical call chooses (the pipeline fixes the rest). */
export type CallerFields = Omit<CallContextInit, 'scope' | 'operation' | 'now' | 'signal'>;

/**
 * A call started without a signal gets `NEVER_ABORTED`: sleeps and transports still get a real signal, and races on it cost nothing.
 * `caller` defaults to `init`; a pipeline passes the caller's options apart, so they are not copied into `init` on every call.
 */
export function createCallContext(init: CallContextInit, caller: CallerFields = init): CallContext {
  // Spelt out rather than spread: this runs once per call (docs/decisions.md#lean-hot-path).
  return {
    logicalCallId: caller.logicalCallId ?? timeOrderedId(),
    scope: init.scope,
    operation: init.operation,
    startedAt: init.now(),
    signal: init.signal ?? NEVER_ABORTED,
    sessionId: caller.sessionId,
    parentCallId: caller.parentCallId,
    tenantId: caller.tenantId,
    priority: caller.priority,
    key: caller.key,
    meta: caller.meta,
    reasoningEffort: caller.reasoningEffort,
    cacheBypass: caller.cacheBypass ?? false,
    callDeadlineMs: caller.callDeadlineMs,
    onDelta: caller.onDelta,
    ledger: { attempts: 0, sourcesTried: [], terminalClaimed: false },
  };
}

/** The call's signal, or undefined when the call was started without one. */
export function callerSignal(ctx: CallContext): AbortSignal | undefined {
  return ctx.signal === NEVER_ABORTED ? undefined : ctx.signal;
}

/** The same call seen under another signal (a deadline boundary's): stats and the terminal claim stay shared. */
export function withSignal(ctx: CallContext, signal: AbortSignal): CallContext {
  return { ...ctx, signal };
}

export function registerAttempt(ctx: CallContext, sourceName: string): void {
  ctx.ledger.attempts += 1;
  if (!ctx.ledger.sourcesTried.includes(sourceName)) ctx.ledger.sourcesTried.push(sourceName);
}

export function callStats(ctx: CallContext, now: Clock): CallStats {
  return {
    logicalCallId: ctx.logicalCallId,
    attempts: ctx.ledger.attempts,
    totalLatencyMs: Math.max(0, now() - ctx.startedAt),
    sourcesTried: [...ctx.ledger.sourcesTried],
  };
}

/** Claims the call's single terminal row; true only for the first claimant. */
export function claimTerminal(ctx: CallContext): boolean {
  if (ctx.ledger.terminalClaimed) return false;
  ctx.ledger.terminalClaimed = true;
  return true;
}
