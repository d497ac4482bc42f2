import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startHarness, type Harness } from './helpers.js';

const hi = [{ role: 'user' as const, content: 'hi' }];

describe('health, readiness, metrics and the drain', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('exposes Prometheus text from the clients’ events', async () => {
    h = await startHarness({ sources: { main: { steps: [{ kind: 'status', status: 500 }] } } });
    await h.openai().chat.completions.create({ model: 'm', messages: hi });
    await h.openai().chat.completions.create({ model: 'm', messages: [{ role: 'robot' as never, content: 'x' }] }).catch(() => undefined);
    const res = await fetch(`${h.url}/metrics`);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain('pgw_calls_total{scope="LLM",operation="chat",protocol="chat_completions",status="ok"} 1');
    expect(text).toContain('pgw_attempts_total{scope="LLM",source="main",outcome="transient"} 1');
    expect(text).toContain('pgw_attempts_total{scope="LLM",source="main",outcome="success"} 1');
    // Label order carries no meaning in the exposition format (prom-client writes `le` first).
    expect(text).toMatch(/pgw_call_duration_seconds_bucket\{(?=[^}]*scope="LLM")(?=[^}]*operation="chat")[^}]*le="\+Inf"[^}]*\} 1/);
    expect(text).toMatch(/pgw_cost_usd_total\{scope="LLM"\} \d/);
    expect(text).toContain('# TYPE pgw_breaker_state gauge');
    expect(text).toContain('pgw_server_requests_in_flight 0');
  });

  it('labels the calls by the protocol they came in, and tells each row its route', async () => {
    const routes: unknown[] = [];
    h = await startHarness(undefined, {}, [{ onCallStart: (event) => void routes.push(event.call.meta?.['route']) }]);
    await h.openai().chat.completions.create({ model: 'm', messages: hi });
    await h.openai().responses.create({ model: 'm', input: 'hi' });
    await h.openai().responses.create({ model: 'm', input: 'hi' });
    const messages = await fetch(`${h.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'm', max_tokens: 10, messages: hi }),
    });
    expect(messages.status).toBe(200);
    await h.openai().embeddings.create({ model: 'e', input: 'x' });
    expect(routes).toEqual(['/v1/chat/completions', '/v1/responses', '/v1/responses', '/v1/messages', '/v1/embeddings']);
    const text = await (await fetch(`${h.url}/metrics`)).text();
    expect(text).toContain('pgw_calls_total{scope="LLM",operation="chat",protocol="chat_completions",status="ok"} 1');
    expect(text).toContain('pgw_calls_total{scope="LLM",operation="chat",protocol="responses",status="ok"} 2');
    expect(text).toContain('pgw_calls_total{scope="LLM",operation="chat",protocol="messages",status="ok"} 1');
    expect(text).toContain('pgw_calls_total{scope="EMBED",operation="embed",protocol="embeddings",status="ok"} 1');
  });

  it('counts failed calls by error class', async () => {
    h = await startHarness({ sources: { main: { otherwise: { kind: 'status', status: 500 } } } });
    await h.openai().chat.completions.create({ model: 'm', messages: hi }).catch(() => undefined);
    expect(await (await fetch(`${h.url}/metrics`)).text()).toContain('pgw_call_errors_total{scope="LLM",operation="chat",protocol="chat_completions",type="AllSourcesExhausted"} 1');
  });

  it('is healthy and ready; not ready when a scope’s keys are wrong, naming the key', async () => {
    h = await startHarness();
    expect(await (await fetch(`${h.url}/healthz`)).json()).toEqual({ status: 'ok' });
    expect((await fetch(`${h.url}/readyz`)).status).toBe(200);
    const broken = await startHarness(undefined, { LLM__SOURCE__MAIN__RPM: 'many' });
    try {
      const res = await fetch(`${broken.url}/readyz`);
      expect(res.status).toBe(503);
      expect(JSON.stringify(await res.json())).toContain('LLM__SOURCE__MAIN__RPM');
    } finally {
      await broken.close();
    }
  });

  it('lists only the configured scopes’ models, and a missing EMBED scope keeps a chat-only server ready', async () => {
    h = await startHarness(undefined, { EMBED__SOURCE__MAIN__BASE_URL: '', EMBED__SOURCE__MAIN__MODEL: '' });
    expect((await h.openai().models.list()).data.map((model) => model.id)).toEqual(['gpt-4o-mini']);
    expect((await fetch(`${h.url}/readyz`)).status).toBe(200);
    const embed = await h.openai().embeddings.create({ model: 'e', input: 'x' }).catch((error: unknown) => error);
    expect((embed as { status?: number }).status).toBe(500);
    expect(String((embed as Error).message)).toContain('EMBED__');
  });

  it('drains: a call that outlives the grace is aborted upstream and answered 503 draining', async () => {
    h = await startHarness({ sources: { main: { steps: [{ kind: 'hang' }] } } });
    const asked = h.openai().chat.completions.create({ model: 'm', messages: hi }).catch((error: unknown) => error);
    await vi.waitFor(() => expect(h!.mock.counters('main').inflight).toBe(1));
    await h.server.drain(200);
    const error = (await asked) as InstanceType<typeof OpenAI.APIError>;
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error.status).toBe(503);
    expect(error.code).toBe('draining');
    await vi.waitFor(() => expect(h!.mock.counters('main').inflight).toBe(0));
    expect(h.server.inflight).toBe(0);
  });
});
