/** With a governor, an attempt's governance is one admission and one finish carrying the verdict and the settlement. */
import { TransientError } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { AccountingLimiter, chatResult, HANG, LoggingGovernor, ScriptedBreaker, usage } from './helpers/fakes.js';
import { chatHarness } from './helpers/harness.js';

const serverError = () => new TransientError({ message: '503', statusCode: 503, transientKind: 'server_error' });

function governed() {
  const limiter = new AccountingLimiter();
  const breaker = new ScriptedBreaker();
  return { limiter, breaker, governor: new LoggingGovernor(breaker, limiter) };
}

describe('governed by a governor', () => {
  it('admits once and finishes once per attempt, with the verdict and what the permit is charged', async () => {
    const { limiter, breaker, governor } = governed();
    const h = chatHarness([serverError(), chatResult('ok', { usage: usage(30, 12) })], { limiter, breaker, governor });
    await h.run();
    expect(governor.admits).toEqual(['a', 'b']);
    expect(governor.finishes).toEqual([
      ['failure', 100],
      ['success', 42],
    ]);
    expect(breaker.outcomes()).toEqual(['a:failure', 'b:success']);
    expect(limiter.enterCalls).toBe(2);
    expect([...limiter.inflight.values()]).toEqual([0, 0]);
  });

  it('a cancelled attempt finishes without a verdict, keeping its estimate', async () => {
    const { limiter, breaker, governor } = governed();
    const h = chatHarness([HANG], { limiter, breaker, governor });
    const controller = new AbortController();
    const call = h.run({}, { signal: controller.signal });
    await h.script.nextEntry();
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    expect(governor.finishes).toEqual([[undefined, 100]]);
    expect(breaker.records).toEqual([]);
  });

  it('a breaker refusal from the governor is a circuit refusal', async () => {
    const { limiter, breaker, governor } = governed();
    breaker.open.set('a', 500);
    breaker.open.set('b', 700);
    const h = chatHarness([], { limiter, breaker, governor });
    await expect(h.run()).rejects.toMatchObject({ name: 'CircuitOpenError', retryAfterMs: 500 });
    expect(limiter.enterCalls).toBe(0);
  });
});

describe('a spend budget', () => {
  it('needs a governor that keeps budgets: one joined by governorOf(limiter, breaker) is refused at assembly', () => {
    const budget = { usd: 1, period: 'day', per: 'scope' } as const;
    expect(() => chatHarness([], { settings: { budget } })).toThrow(RangeError);
    expect(() => chatHarness([], { settings: { budget } })).toThrow(/settings\.budget: .* its governor does not keep/);
  });
});
