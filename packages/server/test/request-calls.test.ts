/**
 * A governed request learns its call's id, its source and its admission wait from the client's
 * events, tied to it by the tenant and the request id — which a client may choose (`x-request-id`):
 * one tenant never reaches another's request, and an id two requests in flight share gives neither
 * the other's call.
 */
import type { AttemptStartEvent, CallStartEvent } from '@pgw/client';

type CallInfo = CallStartEvent['call'];
import { describe, expect, it } from 'vitest';
import { RequestCalls, type RequestCall } from '../src/streaming/call-context.js';
import { startHarness } from './helpers.js';

const info = (logicalCallId: string, tenantId: string | undefined, requestId: unknown): CallInfo =>
  ({ logicalCallId, scope: 'chat:m', operation: 'chat', startedAt: 0, ...(tenantId !== undefined && { tenantId }), meta: { requestId } }) as CallInfo;

function emit(calls: RequestCalls, call: CallInfo, source: string): void {
  calls.subscriber.onCallStart?.({ call, models: [] } as CallStartEvent);
  calls.subscriber.onAttemptStart?.({ call, callId: `${call.logicalCallId}-1`, attempt: 1, source, model: { provider: 'openai', modelId: 'm' } } as AttemptStartEvent);
}

describe('RequestCalls', () => {
  it('hands a request its call id, the source of the attempt running and the wait before the first attempt', () => {
    const calls = new RequestCalls();
    const call: RequestCall = { startedAt: performance.now() - 5 };
    const close = calls.open('acme', 'req-1', call);
    emit(calls, info('call-1', 'acme', 'req-1'), 'main');
    expect(call).toMatchObject({ callId: 'call-1', source: 'main' });
    const waited = call.waitMs!;
    expect(waited).toBeGreaterThanOrEqual(5);
    calls.subscriber.onAttemptStart?.({ call: info('call-1', 'acme', 'req-1'), callId: 'call-1-2', attempt: 2, source: 'backup', model: { provider: 'openai', modelId: 'm' } });
    expect(call).toMatchObject({ source: 'backup', waitMs: waited });
    close();
  });

  it('keeps one tenant’s events from another tenant’s request of the same id, and the tenant "" apart from a named one', () => {
    const calls = new RequestCalls();
    const mine: RequestCall = { startedAt: 0 };
    const keyless: RequestCall = { startedAt: 0 };
    calls.open('acme', 'req-1', mine);
    calls.open('', 'req-1', keyless);
    emit(calls, info('theirs', 'other', 'req-1'), 'elsewhere');
    expect(mine).toEqual({ startedAt: 0 });
    emit(calls, info('no-tenant', undefined, 'req-1'), 'main');
    expect(keyless).toMatchObject({ callId: 'no-tenant' });
    expect(mine).toEqual({ startedAt: 0 });
  });

  it('gives no context to an id two requests in flight share, and gives it again once both have ended', () => {
    const calls = new RequestCalls();
    const first: RequestCall = { startedAt: 0 };
    const second: RequestCall = { startedAt: 0 };
    const closeFirst = calls.open('acme', 'dup', first);
    const closeSecond = calls.open('acme', 'dup', second);
    emit(calls, info('call-a', 'acme', 'dup'), 'main');
    closeFirst();
    emit(calls, info('call-b', 'acme', 'dup'), 'main');
    expect(first).toEqual({ startedAt: 0 });
    expect(second).toEqual({ startedAt: 0 });
    closeSecond();
    const third: RequestCall = { startedAt: 0 };
    calls.open('acme', 'dup', third);
    emit(calls, info('call-c', 'acme', 'dup'), 'main');
    expect(third).toMatchObject({ callId: 'call-c', source: 'main' });
  });

  it('ignores the events of calls that carry no request id of the server (a batch line, an embedded caller)', () => {
    const calls = new RequestCalls();
    const call: RequestCall = { startedAt: 0 };
    calls.open('acme', 'req-1', call);
    emit(calls, info('batch', 'acme', undefined), 'main');
    emit(calls, info('odd', 'acme', { id: 'req-1' }), 'main');
    calls.subscriber.onCallStart?.({ call: { ...info('bare', 'acme', undefined), meta: undefined }, models: [] });
    expect(call).toEqual({ startedAt: 0 });
  });
});

describe('the streamed answer’s headers, when clients choose the same x-request-id', () => {
  const keys = { 'sk-team-a-0000001': 'team-a', 'sk-team-a-0000002': 'team-a', 'sk-team-b-0000001': 'team-b' };
  const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true });

  it('name each request’s own call, or none — never another request’s', async () => {
    const started: { callId: string; tenantId?: string }[] = [];
    const h = await startHarness(undefined, { PGW_SERVER__KEYS: JSON.stringify(keys) }, [
      { onCallStart: (event) => started.push({ callId: event.call.logicalCallId, ...(event.call.tenantId !== undefined && { tenantId: event.call.tenantId }) }) },
    ]);
    const open = (key: string, signal?: AbortSignal) =>
      fetch(`${h.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': 'shared-id' }, body, ...(signal && { signal }) });
    const stalled = new AbortController();
    try {
      // Team A's first stream sends one token and then stalls: it stays in flight while the others run.
      h.mock.setSource('main', { steps: [{ kind: 'stall', afterTokens: 1 }] });
      const held = await open('sk-team-a-0000001', stalled.signal);
      const heldCall = held.headers.get('x-pgw-call-id');
      expect(heldCall).toBe(started[0]!.callId);
      expect(held.headers.get('x-pgw-source')).toBe('main');

      const otherTenant = await open('sk-team-b-0000001');
      await otherTenant.text();
      expect(otherTenant.headers.get('x-pgw-call-id')).toBe(started.find((call) => call.tenantId === 'team-b')!.callId);
      expect(otherTenant.headers.get('x-pgw-source')).toBe('main');

      const sameTenant = await open('sk-team-a-0000002');
      await sameTenant.text();
      expect(started).toHaveLength(3);
      expect([started[2]!.callId, '']).toContain(sameTenant.headers.get('x-pgw-call-id'));
      expect(sameTenant.headers.get('x-pgw-call-id')).not.toBe(heldCall);
    } finally {
      stalled.abort();
      await h.close();
    }
  });
});
