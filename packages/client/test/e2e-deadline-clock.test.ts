/**
 * The call deadline runs on real time, never on the injected governance clock: a clock that jumps
 * 10⁶ s ahead mid-call neither fires it early, and a frozen clock does not stop it from firing.
 */
import { describe, expect, it } from 'vitest';
import { CallDeadlineExceeded, GatewayClient } from '../src/index.js';
import { MockFixture, outcome, uniqueScope } from './helpers/e2e.js';

const fixture = MockFixture.use();

const DEADLINE_MS = 400;
const JUMP_MS = 1e9;
/** Real timers may fire a millisecond or so early against performance.now(). */
const TIMER_SLACK_MS = 20;

async function hangingCall(now: () => number, onInFlight: () => void) {
  const scope = uniqueScope('clock');
  const source = fixture.source('clock', { otherwise: { kind: 'hang' } });
  const client = await GatewayClient.fromEnv(scope, { env: fixture.sourceKeys(scope, source), now, warn: () => {} });
  try {
    const running = outcome(() => client.chat([{ role: 'user', content: 'hi' }], { callDeadlineMs: DEADLINE_MS }));
    await fixture.inflight(source);
    onInFlight();
    return await running;
  } finally {
    await client.close();
  }
}

describe('the call deadline and the injected clock', () => {
  it('a clock jumping 10⁶ s ahead once the request is in flight does not fire the deadline early', async () => {
    let offset = 0;
    const result = await hangingCall(
      () => Date.now() + offset,
      () => (offset += JUMP_MS),
    );
    expect(result.error).toBeInstanceOf(CallDeadlineExceeded);
    expect(result.elapsedMs).toBeGreaterThanOrEqual(DEADLINE_MS - TIMER_SLACK_MS);
    // Fired by its own real-time timer (huge margin: the machine is shared).
    expect(result.elapsedMs).toBeLessThan(DEADLINE_MS + 10_000);
  });

  it('a frozen clock does not keep the deadline from firing', async () => {
    const frozen = Date.now();
    const result = await hangingCall(
      () => frozen,
      () => {},
    );
    expect(result.error).toBeInstanceOf(CallDeadlineExceeded);
    expect(result.elapsedMs).toBeGreaterThanOrEqual(DEADLINE_MS - TIMER_SLACK_MS);
    expect(result.elapsedMs).toBeLessThan(DEADLINE_MS + 10_000);
  });
});
