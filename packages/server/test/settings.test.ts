/** The server's keys: read through the clients' settings path, errors naming the key, API keys never echoed, the key file reloaded in place. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SettingsError } from '@pgw/client';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { loadServerSettings, SERVER_DEFAULTS } from '../src/index.js';
import { post, rawRequest } from './raw-http.js';
import { startHarness } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'pgw-server-keys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function refusal(env: Record<string, string>): SettingsError {
  try {
    loadServerSettings(env);
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return error as SettingsError;
  }
  throw new Error('the settings were accepted');
}

describe('PGW_BATCH__ENGINE', () => {
  it("is read by @pgw/batch's readBatchSettings (as pgw batch reads it), a refusal naming its key", () => {
    expect(loadServerSettings({ PGW_BATCH__ENGINE: 'bullmq', REDIS_URL: 'redis://x:6379', PGW_TELEMETRY_DSN: 'postgres://t/db' }).batchEngine).toEqual({ engine: 'bullmq', redisUrl: 'redis://x:6379', dsn: 'postgres://t/db', redisMode: 'standalone' });
    expect(loadServerSettings({}).batchEngine).toEqual({ engine: 'sqlite', dir: '.pgw/batch' });
    expect(refusal({ PGW_BATCH__ENGINE: 'bullmq', PGW_BATCH__DSN: 'postgres://x/db' }).key).toBe('REDIS_URL');
    expect(refusal({ PGW_BATCH__ENGINE: 'kafka' }).key).toBe('PGW_BATCH__ENGINE');
  });
});

describe('PGW_SERVER__HOSTED_TOOLS', () => {
  it('drops hosted tools by default, refuses them on `refuse`, and refuses any other value naming the key', () => {
    expect(loadServerSettings({}).hostedTools).toBe('drop');
    expect(loadServerSettings({ PGW_SERVER__HOSTED_TOOLS: 'refuse' }).hostedTools).toBe('refuse');
    const error = refusal({ PGW_SERVER__HOSTED_TOOLS: 'run' });
    expect(error.key).toBe('PGW_SERVER__HOSTED_TOOLS');
    expect(error.message).toContain('drop or refuse');
  });
});

describe('PGW_SERVER__KEYS', () => {
  it('refuses a bare key (neither JSON nor a readable file) without echoing it', () => {
    const error = refusal({ PGW_SERVER__KEYS: 'sk-live-0123456789abcdef' });
    expect(error.key).toBe('PGW_SERVER__KEYS');
    expect(error.message).not.toContain('sk-live');
    expect(error.message).not.toContain('0123456789abcdef');
  });

  it.each([
    ['{}', /names no API key/],
    ['{"sk-live-0123456789":', /JSON object/],
    ['{"short": "team"}', /at least 8 characters/],
    ['{"sk-live-0123456789": ""}', /tenant id/],
    ['{"sk-live-0123456789": 7}', /tenant id/],
  ])('refuses %s, never echoing the value', (raw, problem) => {
    const error = refusal({ PGW_SERVER__KEYS: raw });
    expect(error.message).toMatch(problem);
    expect(error.message).not.toContain('sk-live-0123456789');
    expect(error.message).not.toContain('short');
  });

  it('reads a key file, and SIGHUP’s reload refuses a removed key from its next request while its call in flight finishes', async () => {
    const file = join(dir, 'keys.json');
    writeFileSync(file, JSON.stringify({ 'sk-team-a-0001': 'team-a' }));
    const h = await startHarness({ sources: { main: { latencyMs: 800 } } }, { PGW_SERVER__KEYS: file });
    try {
      const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
      const inFlight = rawRequest(h.url, post('/v1/chat/completions', body, { authorization: 'Bearer sk-team-a-0001' }));
      await vi.waitFor(() => expect(h.mock.counters('main').inflight).toBe(1));
      writeFileSync(file, JSON.stringify({ 'sk-team-b-0002': 'team-b' }));
      expect(h.server.reloadKeys()).toBe(true);
      expect((await rawRequest(h.url, post('/v1/chat/completions', body, { authorization: 'Bearer sk-team-a-0001' }))).status).toBe(401);
      expect((await inFlight).status).toBe(200);
      h.mock.setSource('main', {});
      expect((await rawRequest(h.url, post('/v1/chat/completions', body, { authorization: 'Bearer sk-team-b-0002' }))).status).toBe(200);
      // A file that no longer reads as a key table keeps the keys in force.
      writeFileSync(file, 'not json');
      expect(h.server.reloadKeys()).toBe(false);
      expect((await rawRequest(h.url, post('/v1/chat/completions', body, { authorization: 'Bearer sk-team-b-0002' }))).status).toBe(200);
    } finally {
      await h.close();
    }
  });
});

describe('the other PGW_SERVER__ keys', () => {
  it('has the documented defaults', () => {
    const settings = loadServerSettings({});
    expect(settings).toMatchObject({
      drainMs: SERVER_DEFAULTS.drainS * 1000,
      requestTimeoutMs: 60_000,
      headersTimeoutMs: 10_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 4096,
      writeStallMs: 30_000,
      sseHeartbeatMs: 15_000,
      responsesTtlMs: 3_600_000,
      accessLog: true,
    });
    expect(loadServerSettings({ PGW_SERVER__ACCESS_LOG: 'off' }).accessLog).toBe(false);
  });

  it.each([
    ['PGW_SERVER__REQUEST_TIMEOUT_S', 'soon'],
    ['PGW_SERVER__REQUEST_TIMEOUT_S', '0'],
    ['PGW_SERVER__MAX_CONNECTIONS', '0'],
    ['PGW_SERVER__MAX_CONNECTIONS', '2.5'],
    ['PGW_SERVER__SSE_HEARTBEAT_S', '-1'],
    ['PGW_SERVER__RESPONSES_TTL_S', '0'],
    ['PGW_SERVER__RESPONSES_TTL_S', 'an hour'],
    ['PGW_SERVER__ACCESS_LOG', 'maybe'],
    ['PGW_SERVER__DRAIN_S', '-1'],
    ['PGW_SERVER__MODELS', '{"gpt-4o": "not a scope"}'],
    ['PGW_SERVER__MODELS', '{}'],
  ])('refuses %s=%s naming the key', (key, value) => {
    expect(refusal({ [key]: value }).key).toBe(key);
  });
});
