/**
 * Who may read /metrics: its tenant labels name who calls and how much, so a server with keys serves
 * it to a metrics key (`PGW_SERVER__METRICS_KEYS`, Prometheus's bearer scrape) or an admin key only;
 * a keyless loopback server keeps serving it open.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';

const TENANT_KEY = 'sk-tenant-0000001';
const METRICS_KEY = 'metrics-key-00001';
const ADMIN_KEY = 'admin-key-0000001';
const KEYED = { PGW_SERVER__KEYS: JSON.stringify({ [TENANT_KEY]: 'alpha' }), PGW_SERVER__METRICS_KEYS: JSON.stringify([METRICS_KEY]), PGW_SERVER__ADMIN_KEYS: JSON.stringify([ADMIN_KEY]) };

describe('/metrics access', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });
  const scrape = (key?: string) => fetch(`${h!.url}/metrics`, key === undefined ? {} : { headers: { authorization: `Bearer ${key}` } });

  it('on a server with keys: refused without a key and to a tenant key, served to a metrics key and an admin key', async () => {
    h = await startHarness(undefined, KEYED);
    await h.openai(TENANT_KEY).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    for (const key of [undefined, TENANT_KEY, 'not-a-key-at-all']) {
      const refused = await scrape(key);
      expect(refused.status, String(key)).toBe(401);
      const body = await refused.text();
      expect(JSON.parse(body)).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_api_key' } });
      expect(body).not.toContain('alpha');
    }
    for (const key of [METRICS_KEY, ADMIN_KEY]) {
      const served = await scrape(key);
      expect(served.status).toBe(200);
      expect(await served.text()).toContain('tenant="alpha"');
    }
  });

  it('a metrics key opens /metrics only: it is no API key', async () => {
    h = await startHarness(undefined, KEYED);
    const call = await fetch(`${h.url}/v1/models`, { headers: { authorization: `Bearer ${METRICS_KEY}` } });
    expect(call.status).toBe(401);
  });

  it('a keyless loopback server serves /metrics open', async () => {
    h = await startHarness();
    expect((await scrape()).status).toBe(200);
  });

  it('refuses a metrics key that is also an API key, naming the env key', async () => {
    await expect(startHarness(undefined, { ...KEYED, PGW_SERVER__METRICS_KEYS: JSON.stringify([TENANT_KEY]) })).rejects.toThrow(/PGW_SERVER__METRICS_KEYS/);
  });

  it('serves /metrics open on a listener of its own (PGW_SERVER__METRICS_ADDR, loopback by default), closed with the server', async () => {
    h = await startHarness(undefined, { ...KEYED, PGW_SERVER__METRICS_ADDR: ':0' });
    await h.openai(TENANT_KEY).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    const url = h.server.metricsUrl!;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const served = await fetch(url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toContain('text/plain');
    expect(await served.text()).toContain('tenant="alpha"');
    // It serves the metrics and nothing else; the API's listener keeps its key rule.
    expect((await fetch(new URL('/v1/models', url))).status).toBe(404);
    expect((await fetch(url, { method: 'POST' })).status).toBe(405);
    expect((await scrape()).status).toBe(401);
    await h.close();
    h = undefined;
    await expect(fetch(url)).rejects.toThrow();
  });

  it('refuses a PGW_SERVER__METRICS_ADDR that is no [host]:port, naming the key', async () => {
    for (const addr of ['nope', '127.0.0.1:99999', 'host:port:1']) {
      await expect(startHarness(undefined, { PGW_SERVER__METRICS_ADDR: addr }), addr).rejects.toThrow(/PGW_SERVER__METRICS_ADDR/);
    }
  });
});
