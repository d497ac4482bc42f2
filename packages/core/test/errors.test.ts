import { describe, expect, it, vi } from 'vitest';
import * as errors from '../src/errors.js';
import {
  abortError,
  AllSourcesExhausted,
  CallDeadlineExceeded,
  CircuitOpenError,
  GatewayUnavailableError,
  GovernanceBackendError,
  PolyGatewayError,
  RequestRejectedError,
  ResultInvalidError,
  SourceDeadError,
  SourceNotConfiguredError,
  TransientError,
} from '../src/errors.js';

type Ctor = abstract new (...args: never[]) => Error;

const upstream = { message: 'upstream said no', sourceName: 'a', statusCode: 500, bodyText: '{"code":1}' };
const unavailable = { scope: 'LLM', message: 'nothing left' };

/** One instance of every class of docs/architecture.md#errors, with the classes it must be an instance of (itself included). */
const FAMILY: ReadonlyArray<{ error: Error; is: readonly Ctor[] }> = [
  { error: new PolyGatewayError({ message: 'base' }), is: [PolyGatewayError] },
  { error: new TransientError(upstream), is: [PolyGatewayError, TransientError] },
  { error: new SourceDeadError(upstream), is: [PolyGatewayError, SourceDeadError] },
  { error: new RequestRejectedError(upstream), is: [PolyGatewayError, RequestRejectedError] },
  { error: new ResultInvalidError(upstream), is: [PolyGatewayError, ResultInvalidError] },
  {
    error: new GatewayUnavailableError({ scope: 'LLM', reason: 'quota_full' }),
    is: [PolyGatewayError, GatewayUnavailableError],
  },
  { error: new AllSourcesExhausted(unavailable), is: [PolyGatewayError, GatewayUnavailableError, AllSourcesExhausted] },
  { error: new CircuitOpenError(unavailable), is: [PolyGatewayError, GatewayUnavailableError, CircuitOpenError] },
  {
    error: new GovernanceBackendError(unavailable),
    is: [PolyGatewayError, GatewayUnavailableError, GovernanceBackendError],
  },
  {
    error: new SourceNotConfiguredError({ scope: 'LLM', sourceName: 'ghost' }),
    is: [PolyGatewayError, SourceNotConfiguredError],
  },
  { error: new CallDeadlineExceeded({ scope: 'LLM', deadlineMs: 50 }), is: [PolyGatewayError, CallDeadlineExceeded] },
];

const CLASSES: readonly Ctor[] = [
  PolyGatewayError,
  TransientError,
  SourceDeadError,
  RequestRejectedError,
  ResultInvalidError,
  GatewayUnavailableError,
  AllSourcesExhausted,
  CircuitOpenError,
  GovernanceBackendError,
  SourceNotConfiguredError,
  CallDeadlineExceeded,
];

describe('error taxonomy (docs/architecture.md#errors)', () => {
  it('covers every class once', () => {
    expect(FAMILY.map((row) => row.error.constructor)).toEqual(CLASSES);
  });

  describe.each(FAMILY)('$error.name', ({ error, is }) => {
    it.each(CLASSES.map((c) => [c.name, c] as const))('instanceof %s matches the family tree', (_name, ctor) => {
      expect(error instanceof ctor).toBe(is.includes(ctor));
    });

    it('is an Error named after its class', () => {
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe(error.constructor.name);
    });
  });

  it('names are the class names of docs/architecture.md#errors', () => {
    expect(new Set(FAMILY.map((row) => row.error.name))).toEqual(
      new Set([
        'PolyGatewayError',
        'TransientError',
        'SourceDeadError',
        'RequestRejectedError',
        'ResultInvalidError',
        'GatewayUnavailableError',
        'AllSourcesExhausted',
        'CircuitOpenError',
        'GovernanceBackendError',
        'SourceNotConfiguredError',
        'CallDeadlineExceeded',
      ]),
    );
  });

  it('keeps the cause', () => {
    const cause = new Error('root');
    expect(new TransientError({ message: 'x', cause }).cause).toBe(cause);
    expect(new GovernanceBackendError({ scope: 'LLM', message: 'redis down', cause }).cause).toBe(cause);
    expect(new CallDeadlineExceeded({ scope: 'LLM', deadlineMs: 5, cause }).cause).toBe(cause);
    expect(new SourceNotConfiguredError({ scope: 'LLM', sourceName: 'x', cause }).cause).toBe(cause);
    expect('cause' in new TransientError({ message: 'x' })).toBe(false);
  });

  it('keeps the structured upstream fields', () => {
    const error = new TransientError({ ...upstream, retryAfterMs: 2500 });
    expect(error).toMatchObject({ sourceName: 'a', statusCode: 500, bodyText: '{"code":1}', retryAfterMs: 2500 });
    expect(new TransientError({ message: '429', statusCode: 429 }).transientKind).toBe('rate_limited');
  });

  it.each([undefined, 0, -5, Number.NaN, Number.POSITIVE_INFINITY])(
    'GatewayUnavailableError retryAfterMs is never 0 (given %s)',
    (hint) => {
      const error = new GatewayUnavailableError({ scope: 'LLM', reason: 'stalled', retryAfterMs: hint });
      expect(error.retryAfterMs).toBeGreaterThan(0);
      expect(Number.isFinite(error.retryAfterMs)).toBe(true);
    },
  );

  it('GatewayUnavailableError keeps a usable hint and rounds it up to whole ms', () => {
    expect(new CircuitOpenError({ scope: 'LLM', retryAfterMs: 0.2 }).retryAfterMs).toBe(1);
    expect(new CircuitOpenError({ scope: 'LLM', retryAfterMs: 1234 }).retryAfterMs).toBe(1234);
  });

  it('GovernanceBackendError defaults its hint to 5000 ms and is fail-closed', () => {
    const error = new GovernanceBackendError({ scope: 'LLM', message: 'redis down' });
    expect(error.retryAfterMs).toBe(5000);
    expect(error.reason).toBe('governance_backend');
    expect(new GovernanceBackendError({ scope: 'LLM', message: 'x', retryAfterMs: 700 }).retryAfterMs).toBe(700);
  });

  it('fixed-reason subclasses carry their reason', () => {
    expect(new AllSourcesExhausted(unavailable).reason).toBe('retry_exhausted');
    expect(new CircuitOpenError(unavailable).reason).toBe('circuit_open');
  });

  it('CallDeadlineExceeded carries scope and deadline, no retry hint, and is not "unavailable"', () => {
    const error = new CallDeadlineExceeded({ scope: 'EMBED', deadlineMs: 1500 });
    expect(error).toMatchObject({ scope: 'EMBED', deadlineMs: 1500 });
    expect('retryAfterMs' in error).toBe(false);
    expect(error instanceof GatewayUnavailableError).toBe(false);
  });

  it('SourceNotConfiguredError is an assembly defect outside the unavailable family', () => {
    const error = new SourceNotConfiguredError({ scope: 'LLM', sourceName: 'ghost' });
    expect(error instanceof GatewayUnavailableError).toBe(false);
    expect(error.message).toContain('ghost');
  });

  it('a user subclass without its own kind keeps its name and its ancestry', () => {
    class FlakyRelayError extends TransientError {}
    const error = new FlakyRelayError({ message: 'relay hiccup' });
    expect(error.name).toBe('FlakyRelayError');
    expect(error instanceof FlakyRelayError).toBe(true);
    expect(error instanceof TransientError).toBe(true);
    expect(new TransientError({ message: 'x' }) instanceof FlakyRelayError).toBe(false);
  });

  it('non-errors are instances of nothing', () => {
    for (const value of [null, undefined, 42, 'TransientError', {}, new Error('plain')]) {
      expect(value instanceof PolyGatewayError).toBe(false);
    }
  });

  it('abortError follows Node: name AbortError, code ABORT_ERR, cause = the signal reason', () => {
    const controller = new AbortController();
    const reason = { why: 'user left' };
    controller.abort(reason);
    const error = abortError(controller.signal);
    expect(error).toMatchObject({ name: 'AbortError', code: 'ABORT_ERR' });
    expect(error.cause).toBe(reason);
  });
});

describe('instanceof across two copies of the module', () => {
  it('an error of one copy is an instance of the other copy’s class', async () => {
    vi.resetModules();
    const copyB = await import('../src/errors.js');
    expect(copyB.TransientError).not.toBe(errors.TransientError);

    const fromB = new copyB.TransientError({ message: 'copy B' });
    expect(fromB instanceof errors.TransientError).toBe(true);
    expect(fromB instanceof errors.PolyGatewayError).toBe(true);
    expect(fromB instanceof errors.SourceDeadError).toBe(false);

    const fromA = new errors.GovernanceBackendError({ scope: 'LLM', message: 'copy A' });
    expect(fromA instanceof copyB.GatewayUnavailableError).toBe(true);
    expect(fromA instanceof copyB.GovernanceBackendError).toBe(true);
    expect(fromA instanceof copyB.CircuitOpenError).toBe(false);
    const deadlineB = new copyB.CallDeadlineExceeded({ scope: 'x', deadlineMs: 1 });
    expect(deadlineB instanceof errors.CallDeadlineExceeded).toBe(true);
    expect(deadlineB instanceof errors.GatewayUnavailableError).toBe(false);
  });
});

describe('StreamInterruptedError (chatStream, beyond docs/architecture.md#errors)', () => {
  it('is an AllSourcesExhausted carrying the partial delivery, recognised across copies', async () => {
    const cause = new errors.TransientError({ message: 'truncated', transientKind: 'truncated', sourceName: 'a' });
    const error = new errors.StreamInterruptedError({ scope: 'LLM', sourceName: 'a', partialContent: 'one two', message: 'broke off', cause });
    expect(error).toMatchObject({ name: 'StreamInterruptedError', reason: 'retry_exhausted', sourceName: 'a', partialContent: 'one two', cause });
    expect(error instanceof AllSourcesExhausted && error instanceof GatewayUnavailableError).toBe(true);
    expect(error.retryAfterMs).toBeGreaterThan(0);
    expect(new AllSourcesExhausted(unavailable) instanceof errors.StreamInterruptedError).toBe(false);
    vi.resetModules();
    const copyB = await import('../src/errors.js');
    expect(error instanceof copyB.StreamInterruptedError).toBe(true);
  });
});
