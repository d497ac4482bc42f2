/**
 * One attempt of a wrapped AI SDK model: the AI SDK call gets an AbortSignal that follows the
 * attempt's scope (the caller's abort, the total timeout, for a stream the liveness limits), and
 * whatever it throws leaves as the caller's abort, our own limit, or the classified failure.
 */
import type { AttemptContext } from '@pgw/core';
import { AttemptScope, type ResolvedLiveness } from '@pgw/http';
import { classifyFailure, type FailureContext } from './classify-failure.js';

export interface RunOptions {
  /** Present for a stream: the first-token and inter-token limits, and the cap of its total time. */
  liveness?: ResolvedLiveness;
  secrets?: readonly string[];
  warn?: (message: string) => void;
}

export function failureContext(attempt: AttemptContext, options: RunOptions): FailureContext {
  return { sourceName: attempt.sourceName, secrets: options.secrets ?? [], warn: options.warn ?? (() => {}), route: 'ai-sdk' };
}

export async function runAttempt<T>(attempt: AttemptContext, options: RunOptions, run: (signal: AbortSignal, scope: AttemptScope) => Promise<T>): Promise<T> {
  const { liveness } = options;
  const scope = new AttemptScope({
    callerSignal: attempt.signal,
    sourceName: attempt.sourceName,
    route: 'ai-sdk',
    totalMs: liveness ? Math.min(attempt.timeoutMs, liveness.totalMs) : attempt.timeoutMs,
    ...(liveness && { liveness: liveness.limits }),
  });
  const inner = new AbortController();
  scope.cancel.on('abort', () => inner.abort(scope.cancel.reason));
  try {
    return await run(inner.signal, scope);
  } catch (error) {
    const outcome = scope.outcome(error);
    throw outcome === error ? classifyFailure(error, failureContext(attempt, options)) : outcome;
  } finally {
    scope.dispose();
  }
}
