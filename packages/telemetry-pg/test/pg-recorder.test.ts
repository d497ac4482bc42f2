import pg from 'pg';
import { TELEMETRY_COLUMNS } from '@pgw/core';
import { telemetryRow } from '@pgw/testkit';
import { describe, expect, it } from 'vitest';
import { PgRecorder, summarize } from '../src/index.js';
import { DSN, countRows, readRows, uniqueName, useRecorders, useTestDatabase } from './support.js';

const db = useTestDatabase();
const { openRecorder, closeRecorders } = useRecorders(db);

describe('PgRecorder schema', () => {
  it('creates llm_calls with the columns of TELEMETRY_COLUMNS, meta as jsonb, the three indexes and versions 1 to 4', async () => {
    const table = uniqueName('calls');
    await openRecorder({ table });
    const columns = await db.client.query<{ column_name: string; data_type: string }>(
      'SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position',
      [db.schema, table],
    );
    expect(columns.rows.map((c) => c.column_name)).toEqual(TELEMETRY_COLUMNS.map(([name]) => name));
    expect(columns.rows.find((c) => c.column_name === 'meta')?.data_type).toBe('jsonb');
    expect(columns.rows.find((c) => c.column_name === 'ts')?.data_type).toBe('timestamp with time zone');
    const indexes = await db.client.query<{ indexdef: string }>(
      'SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 ORDER BY indexname',
      [db.schema, table],
    );
    expect(indexes.rows.map((i) => i.indexdef.replace(/^.* USING btree /, ''))).toEqual([
      '(logical_call_id)',
      '(tenant_id, ts)',
      '(ts)',
    ]);
    const versions = await db.client.query(`SELECT version FROM ${db.schema}.pgw_schema_version WHERE table_name = $1`, [table]);
    expect(versions.rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }]);
  });

  it('migrates a table from before tool_calls (version 3) and writes the count', async () => {
    const table = uniqueName('calls');
    await (await openRecorder({ table })).close();
    await db.client.query(`ALTER TABLE ${db.schema}.${table} DROP COLUMN tool_calls, DROP COLUMN cache_write_prompt_tokens, DROP COLUMN priority, DROP COLUMN wait_ms`);
    await db.client.query(`DELETE FROM ${db.schema}.pgw_schema_version WHERE table_name = $1 AND version >= 3`, [table]);
    const recorder = await openRecorder({ table });
    recorder.record(telemetryRow({ toolCalls: 2 }));
    await recorder.flush();
    const rows = await db.client.query(`SELECT tool_calls FROM ${db.schema}.${table}`);
    expect(rows.rows).toEqual([{ tool_calls: 2 }]);
  });

  it('migrates a table from before cache writes (version 4) and writes them', async () => {
    const table = uniqueName('calls');
    await (await openRecorder({ table })).close();
    await db.client.query(`ALTER TABLE ${db.schema}.${table} DROP COLUMN cache_write_prompt_tokens, DROP COLUMN priority, DROP COLUMN wait_ms`);
    await db.client.query(`DELETE FROM ${db.schema}.pgw_schema_version WHERE table_name = $1 AND version >= 4`, [table]);
    const recorder = await openRecorder({ table });
    recorder.record(telemetryRow({ cacheWritePromptTokens: 640 }));
    await recorder.flush();
    const rows = await db.client.query(`SELECT cache_write_prompt_tokens FROM ${db.schema}.${table}`);
    expect(rows.rows).toEqual([{ cache_write_prompt_tokens: 640 }]);
  });

  it('migrates a table from before priority classes (version 5), keeping its rows, and writes priority and wait', async () => {
    const table = uniqueName('calls');
    await (await openRecorder({ table })).close();
    const qualified = `${db.schema}.${table}`;
    await db.client.query(`ALTER TABLE ${qualified} DROP COLUMN priority, DROP COLUMN wait_ms`);
    await db.client.query(`DELETE FROM ${db.schema}.pgw_schema_version WHERE table_name = $1 AND version = 5`, [table]);
    await db.client.query(
      `INSERT INTO ${qualified} (ts, scope, operation, event_kind, call_id, logical_call_id, status) VALUES (now(), 'LLM', 'chat', 'attempt', 'old', 'old', 'ok')`,
    );
    const recorder = await openRecorder({ table });
    recorder.record(telemetryRow({ callId: 'new', priority: 'batch', waitMs: 250.5 }));
    await recorder.flush();
    const rows = await db.client.query(`SELECT call_id, priority, wait_ms FROM ${qualified} ORDER BY call_id`);
    expect(rows.rows).toEqual([
      { call_id: 'new', priority: 'batch', wait_ms: 250.5 },
      { call_id: 'old', priority: null, wait_ms: null },
    ]);
    const versions = await db.client.query(`SELECT version FROM ${db.schema}.pgw_schema_version WHERE table_name = $1 ORDER BY version`, [table]);
    expect(versions.rows.map((row) => row.version)).toEqual([1, 2, 3, 4, 5]);
  });

  it('migrates once when two workers open a fresh schema at the same time', async () => {
    const schema = uniqueName('pgw_test_race');
    try {
      const warnings: string[] = [];
      const options = { schema, warn: (m: string) => warnings.push(m) };
      const [a, b] = await Promise.all([openRecorder(options), openRecorder(options)]);
      const rows = [telemetryRow(), telemetryRow()];
      a.record(rows[0]!);
      b.record(rows[1]!);
      await Promise.all([a.flush(), b.flush()]);
      expect(warnings).toEqual([]);
      expect(await countRows(db.client, schema, 'llm_calls')).toBe(2);
      const versions = await db.client.query(`SELECT version FROM ${schema}.pgw_schema_version ORDER BY version`);
      expect(versions.rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }]);
    } finally {
      await closeRecorders();
      await db.client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
  });

  it('migrates a version-1 table to versions 2 to 5 (the prompt-cache columns, tool_calls, cache writes, priority and wait), keeping its rows, once', async () => {
    const table = uniqueName('calls');
    await (await openRecorder({ table })).close();
    const qualified = `${db.schema}.${table}`;
    // Back to what a release with schema version 1 left behind, with one row of it.
    await db.client.query(`ALTER TABLE ${qualified} DROP COLUMN cached_prompt_tokens, DROP COLUMN cache_saving_usd, DROP COLUMN tool_calls, DROP COLUMN cache_write_prompt_tokens, DROP COLUMN priority, DROP COLUMN wait_ms`);
    await db.client.query(`DELETE FROM ${db.schema}.pgw_schema_version WHERE table_name = $1 AND version >= 2`, [table]);
    const old = telemetryRow();
    await db.client.query(
      `INSERT INTO ${qualified} (ts, scope, operation, event_kind, call_id, logical_call_id, status) VALUES (to_timestamp($1 / 1000.0), $2, $3, $4, $5, $6, $7)`,
      [old.ts, old.scope, old.operation, old.eventKind, old.callId, old.logicalCallId, old.status],
    );
    const recorder = await openRecorder({ table });
    const fresh = telemetryRow({ cachedPromptTokens: 7, cacheSavingUsd: 0.5 });
    recorder.record(fresh);
    await recorder.flush();
    await openRecorder({ table });
    const versions = await db.client.query(`SELECT version FROM ${db.schema}.pgw_schema_version WHERE table_name = $1 ORDER BY version`, [table]);
    expect(versions.rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }]);
    const rows = await readRows(db.client, db.schema, table);
    expect(rows.map((r) => r.callId).sort()).toEqual([old.callId, fresh.callId].sort());
    expect(rows.find((r) => r.callId === fresh.callId)).toMatchObject({ cachedPromptTokens: 7, cacheSavingUsd: 0.5 });
  });

  it('refuses a table migrated by a newer release: warns, drops rows, does not crash', async () => {
    const table = uniqueName('calls');
    await (await openRecorder({ table })).close();
    await db.client.query(`INSERT INTO ${db.schema}.pgw_schema_version (table_name, version) VALUES ($1, 99)`, [table]);
    const warnings: string[] = [];
    const recorder = await openRecorder({ table, warn: (m) => warnings.push(m) });
    recorder.record(telemetryRow());
    await recorder.flush();
    expect(recorder.stats()).toEqual({ written: 0, dropped: 1, queued: 0 });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('schema version 99');
  });

  it('rejects bad options with a RangeError naming the option', async () => {
    await expect(PgRecorder.open({})).rejects.toThrow(/dsn and pool/);
    await expect(PgRecorder.open({ dsn: DSN, table: 'calls; DROP TABLE x' })).rejects.toThrow(/option table/);
    await expect(PgRecorder.open({ dsn: DSN, statementTimeoutMs: 0 })).rejects.toThrow(/statementTimeoutMs/);
  });
});

describe('PgRecorder writes', () => {
  it('splits a batch beyond 65535 parameters into several inserts of one transaction', async () => {
    const table = uniqueName('calls');
    const recorder = await openRecorder({ table, batchSize: 3_000, maxQueue: 3_000 });
    for (let i = 0; i < 3_000; i += 1) recorder.record(telemetryRow());
    await recorder.flush();
    expect(recorder.stats()).toEqual({ written: 3_000, dropped: 0, queued: 0 });
    expect(await countRows(db.client, db.schema, table)).toBe(3_000);
  });

  it('stores NUL characters of text and meta as U+FFFD instead of losing the batch', async () => {
    const table = uniqueName('calls');
    const recorder = await openRecorder({ table });
    const withNul = telemetryRow({ responseText: 'a\0b', meta: { 'k\0': 'v\0', literal: '\\u0000' } });
    recorder.record(withNul);
    recorder.record(telemetryRow());
    await recorder.flush();
    expect(recorder.stats()).toEqual({ written: 2, dropped: 0, queued: 0 });
    const stored = (await readRows(db.client, db.schema, table)).find((r) => r.callId === withNul.callId);
    expect(stored?.responseText).toBe('a\uFFFDb');
    expect(stored?.meta).toEqual({ 'k\uFFFD': 'v\uFFFD', literal: '\\u0000' });
  });

  it('stores lone surrogates of text and meta as U+FFFD and keeps the whole batch', async () => {
    const table = uniqueName('calls');
    const recorder = await openRecorder({ table, batchSize: 20 });
    const broken = telemetryRow({ requestText: 'half \uD83D', meta: { ['k\uDE80']: ['v\uD83D', '🚀'] } });
    for (let i = 0; i < 19; i += 1) recorder.record(telemetryRow());
    recorder.record(broken);
    await recorder.flush();
    expect(recorder.stats()).toEqual({ written: 20, dropped: 0, queued: 0 });
    const stored = (await readRows(db.client, db.schema, table)).find((r) => r.callId === broken.callId);
    expect(stored?.requestText).toBe('half \uFFFD');
    expect(stored?.meta).toEqual({ 'k\uFFFD': ['v\uFFFD', '🚀'] });
  });

  it('retries a batch a data error rejected row by row, losing and counting only the bad row', async () => {
    const table = uniqueName('calls');
    const warnings: string[] = [];
    const recorder = await openRecorder({ table, batchSize: 20, warn: (m) => warnings.push(m) });
    // Fits the row encoding, but not PostgreSQL's integer column (SQLSTATE 22003).
    const outOfRange = telemetryRow({ promptTokens: 3_000_000_000 });
    for (let i = 0; i < 10; i += 1) recorder.record(telemetryRow());
    recorder.record(outOfRange);
    for (let i = 0; i < 9; i += 1) recorder.record(telemetryRow());
    await recorder.flush();
    expect(recorder.stats()).toEqual({ written: 19, dropped: 1, queued: 0 });
    const stored = await readRows(db.client, db.schema, table);
    expect(stored).toHaveLength(19);
    expect(stored.some((r) => r.callId === outOfRange.callId)).toBe(false);
    expect(warnings.join('\n')).toContain('out of range');
  });

  it('retries row by row within a batch split over several inserts', async () => {
    const table = uniqueName('calls');
    const recorder = await openRecorder({ table, batchSize: 5_000, writeTimeoutMs: 60_000, flushTimeoutMs: 60_000 });
    for (let i = 0; i < 2_500; i += 1) recorder.record(telemetryRow());
    recorder.record(telemetryRow({ attempts: 3_000_000_000 }));
    await recorder.flush();
    expect(recorder.stats()).toEqual({ written: 2_500, dropped: 1, queued: 0 });
    expect(await countRows(db.client, db.schema, table)).toBe(2_500);
  });

  it('drops a malformed row alone, with a warning naming the field', async () => {
    const table = uniqueName('calls');
    const warnings: string[] = [];
    const recorder = await openRecorder({ table, warn: (m) => warnings.push(m) });
    recorder.record({ ...telemetryRow(), ts: Number.NaN });
    recorder.record(telemetryRow());
    await recorder.flush();
    expect(recorder.stats()).toEqual({ written: 1, dropped: 1, queued: 0 });
    expect(warnings[0]).toContain('field ts');
  });

  it("writes through the application's own pool and leaves it open on close", async () => {
    const table = uniqueName('calls');
    const pool = new pg.Pool({ connectionString: DSN, max: 2 });
    try {
      const recorder = await PgRecorder.open({ pool, schema: db.schema, table });
      recorder.record(telemetryRow({ logicalCallId: 'own-pool' }));
      await recorder.close();
      expect(recorder.stats()).toEqual({ written: 1, dropped: 0, queued: 0 });
      const summary = await summarize({ pool, schema: db.schema, table });
      expect(summary.calls).toBe(1);
    } finally {
      await pool.end();
    }
  });
});
