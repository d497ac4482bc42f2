/**
 * Telemetry end to end: fromEnv writes `llm_calls` rows to a real SQLite file and a real Postgres
 * table — one row per attempt (cancelled ones included) and exactly one terminal row per failed call.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AllSourcesExhausted, CallDeadlineExceeded, GatewayClient } from '../src/index.js';
import { BACKENDS, MockFixture, scopeKeys, uniqueScope } from './helpers/e2e.js';
import { telemetryStores } from './helpers/stores.js';

interface StoredRow {
  event_kind: string;
  status: string;
  error: string | null;
  error_type: string | null;
  logical_call_id: string;
  source: string | null;
}

const COLUMNS = 'event_kind, status, error, error_type, logical_call_id, source';
const dir = mkdtempSync(join(tmpdir(), 'pgw-client-telemetry-'));

const STORES = telemetryStores(dir);

const fixture = MockFixture.use();
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const HI = [{ role: 'user' as const, content: 'hi' }];
const CASES = BACKENDS.flatMap((backend) => STORES.map((store) => [backend.name, store.name, backend, store] as const));

describe('telemetry rows through fromEnv', () => {
  it.each(CASES)('on %s backends into %s', async (_b, _s, backend, store) => {
    const scope = uniqueScope('rows');
    const source = fixture.source('rows', {
      steps: [
        { kind: 'status', status: 500 },
        { kind: 'ok' },
        { kind: 'status', status: 502 },
        { kind: 'status', status: 503 },
        { kind: 'hang' },
      ],
    });
    const env = {
      ...backend.env,
      ...store.env(scope),
      ...fixture.sourceKeys(scope, source),
      ...scopeKeys(scope, { MAX_ATTEMPTS: '2', RETRY__BACKOFF_BASE_S: '0.01', RETRY__BACKOFF_MAX_S: '0.05', CACHE__NAMESPACE: scope }),
    };
    const client = await GatewayClient.fromEnv(scope, { env, warn: () => {} });
    try {
      await expect(client.chat(HI)).resolves.toMatchObject({ source, callStats: { attempts: 2 } });
      await expect(client.chat(HI, { cacheBypass: true })).rejects.toBeInstanceOf(AllSourcesExhausted);
      await expect(client.chat(HI, { cacheBypass: true, callDeadlineMs: 300 })).rejects.toBeInstanceOf(CallDeadlineExceeded);
    } finally {
      await client.close();
    }

    const rows = await store.rows<StoredRow>(scope, COLUMNS);
    const attempts = rows.filter((r) => r.event_kind === 'attempt');
    const terminals = rows.filter((r) => r.event_kind === 'terminal_failure');
    expect(attempts.every((r) => r.source === source)).toBe(true);
    // Rows of one millisecond may come back in any order: compare per logical call, as sorted statuses.
    const byCall = new Map<string, string[]>();
    for (const row of attempts) byCall.set(row.logical_call_id, [...(byCall.get(row.logical_call_id) ?? []), row.status].sort());
    expect([...byCall.values()].sort()).toEqual([['cancelled'], ['error', 'error'], ['error', 'ok']]);
    expect(attempts.find((r) => r.status === 'cancelled')!.error).toBe('cancelled');
    // Exactly one terminal row per failed call, and none for the call that succeeded.
    const failed = [...byCall].filter(([, statuses]) => !statuses.includes('ok')).map(([id]) => id);
    expect(terminals.map((r) => r.logical_call_id).sort()).toEqual(failed.sort());
    expect(terminals.map((r) => r.error_type).sort()).toEqual(['AllSourcesExhausted', 'CallDeadlineExceeded']);
  });
});
