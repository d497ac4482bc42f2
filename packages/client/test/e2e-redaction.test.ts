/**
 * An upstream that echoes the API key back — JSON-escaped, URL-encoded, or cut by the 64 KiB
 * error-read cap — never gets it (or a prefix of it) into the error or the telemetry row.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MIN_CUT_PREFIX_CHARS } from '@pgw/core/internal';
import { afterAll, describe, expect, it } from 'vitest';
import { GatewayClient, RequestRejectedError } from '../src/index.js';
import { MockFixture, scopeKeys, uniqueScope } from './helpers/e2e.js';
import { readSqlite } from './helpers/stores.js';

const KEY = 'Zq8/kR2+secret"Xw-7c1e';
/** Every way the key's first MIN_CUT_PREFIX_CHARS characters could show. */
const KEY_STARTS = [KEY, JSON.stringify(KEY).slice(1, -1).replaceAll('/', '\\/'), encodeURIComponent(KEY)].map((form) =>
  form.slice(0, MIN_CUT_PREFIX_CHARS),
);
const ERROR_READ_CAP = 64 * 1024;

const dir = mkdtempSync(join(tmpdir(), 'pgw-client-redaction-'));
const fixture = MockFixture.use();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Everything an error says, down its cause chain: messages and every string field. */
function errorText(error: unknown): string {
  const parts: string[] = [];
  for (let at = error; at instanceof Error; at = at.cause) parts.push(at.message, JSON.stringify({ ...at }));
  return parts.join('\n');
}

function storedErrors(path: string): string {
  return readSqlite<{ error: string | null }>(path, 'SELECT error FROM llm_calls').map((r) => r.error).join('\n');
}

const ECHOES = [
  ['JSON-escaped with \\/', JSON.stringify({ error: { message: `bad key ${JSON.stringify(KEY).slice(1, -1).replaceAll('/', '\\/')}` } })],
  ['URL-encoded', `{"error":{"message":"see https://relay.example/keys?k=${encodeURIComponent(KEY)}"}}`],
  ['cut by the error-read cap at any offset', KEY.repeat(Math.ceil((3 * ERROR_READ_CAP) / KEY.length))],
] as const;

describe('an upstream echoing the API key', () => {
  it.each(ECHOES)('%s: neither the error nor the telemetry row holds it or a prefix', async (_, body) => {
    const scope = uniqueScope('redact');
    const path = join(dir, `${scope}.sqlite`);
    const source = fixture.source('echo', { otherwise: { kind: 'status', status: 400, body } });
    const env = {
      PGW_TELEMETRY_BACKEND: 'sqlite',
      PGW_SQLITE_PATH: path,
      ...fixture.sourceKeys(scope, source, { API_KEY: KEY }),
      ...scopeKeys(scope, { MAX_ATTEMPTS: '1' }),
    };
    const client = await GatewayClient.fromEnv(scope, { env, warn: () => {} });
    let failure: unknown;
    try {
      failure = await client.chat([{ role: 'user', content: 'hi' }]).catch((error: unknown) => error);
    } finally {
      await client.close();
    }
    const texts = [errorText(failure), storedErrors(path)];
    expect(texts[0]).toContain('[redacted]');
    expect(texts[1]).toContain('[redacted]');
    for (const text of texts) for (const start of KEY_STARTS) expect(text).not.toContain(start);
    expect(failure).toBeInstanceOf(Error);
    expect(errorText(failure)).toContain(RequestRejectedError.name);
  });
});
