import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import Database from 'better-sqlite3';
import { TELEMETRY_COLUMNS } from '@pgw/core';
import { telemetryRow } from '@pgw/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteRecorder, rotatedFiles, summarize } from '../src/index.js';
import { countRows, readRows, tempDir } from './support.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function scratch() {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  return dir;
}

/** Every behaviour below holds wherever the file is written; `describe.each` sets the thread. */
let thread: 'worker' | 'main' = 'worker';

async function openRecorder(options: Parameters<typeof SqliteRecorder.open>[0]) {
  const recorder = await SqliteRecorder.open({ thread, ...options });
  cleanups.push(() => recorder.close());
  return recorder;
}

function inspect<T>(path: string, query: (db: Database.Database) => T): T {
  const db = new Database(path, { readonly: true });
  try {
    return query(db);
  } finally {
    db.close();
  }
}

describe.each(['worker', 'main'] as const)('thread: %s', (mode) => {
  beforeEach(() => {
    thread = mode;
  });

  describe('SqliteRecorder schema', () => {
    it('uses WAL, has the columns of TELEMETRY_COLUMNS in order, the three indexes and schema versions 1 to 5', async () => {
      const path = join(scratch(), 'telemetry.sqlite');
      const recorder = await openRecorder({ path });
      const journal = inspect(path, (db) => db.pragma('journal_mode', { simple: true }));
      expect(journal).toBe('wal');
      const columns = inspect(path, (db) => db.prepare("SELECT name FROM pragma_table_info('llm_calls') ORDER BY cid").pluck().all());
      expect(columns).toEqual(TELEMETRY_COLUMNS.map(([name]) => name));
      const indexes = inspect(path, (db) =>
        db
          .prepare("SELECT name, (SELECT group_concat(name) FROM pragma_index_info(m.name)) AS cols FROM sqlite_master m WHERE type = 'index' AND tbl_name = 'llm_calls' ORDER BY name")
          .all(),
      );
      expect(indexes).toEqual([
        { name: 'llm_calls_logical_call_id', cols: 'logical_call_id' },
        { name: 'llm_calls_tenant_ts', cols: 'tenant_id,ts' },
        { name: 'llm_calls_ts', cols: 'ts' },
      ]);
      await recorder.close();
      await (await openRecorder({ path })).close();
      const versions = inspect(path, (db) => db.prepare('SELECT version FROM schema_version').pluck().all());
      expect(versions).toEqual([1, 2, 3, 4, 5]);
    });

    it('migrates a version-1 file to versions 2 to 5 (the prompt-cache columns, tool_calls, cache writes, priority and wait), keeping its rows, once', async () => {
      const path = join(scratch(), 'telemetry.sqlite');
      await (await openRecorder({ path })).close();
      const old = telemetryRow();
      const db = new Database(path);
      try {
        // Back to what a release with schema version 1 left behind.
        db.exec('ALTER TABLE llm_calls DROP COLUMN cached_prompt_tokens; ALTER TABLE llm_calls DROP COLUMN cache_saving_usd; ALTER TABLE llm_calls DROP COLUMN tool_calls; ALTER TABLE llm_calls DROP COLUMN cache_write_prompt_tokens; ALTER TABLE llm_calls DROP COLUMN priority; ALTER TABLE llm_calls DROP COLUMN wait_ms');
        db.exec('DELETE FROM schema_version WHERE version >= 2');
        db.prepare('INSERT INTO llm_calls (ts, scope, operation, event_kind, call_id, logical_call_id, status) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
          old.ts, old.scope, old.operation, old.eventKind, old.callId, old.logicalCallId, old.status,
        );
      } finally {
        db.close();
      }
      const recorder = await openRecorder({ path });
      const fresh = telemetryRow({ cachedPromptTokens: 7, cacheSavingUsd: 0.5 });
      recorder.record(fresh);
      await recorder.close();
      await (await openRecorder({ path })).close();
      expect(inspect(path, (d) => d.prepare('SELECT version FROM schema_version ORDER BY version').pluck().all())).toEqual([1, 2, 3, 4, 5]);
      const rows = readRows(path);
      expect(rows.map((r) => r.callId).sort()).toEqual([old.callId, fresh.callId].sort());
      expect(rows.find((r) => r.callId === fresh.callId)).toMatchObject({ cachedPromptTokens: 7, cacheSavingUsd: 0.5 });
    });

    it('migrates a file from before tool_calls (version 3): old rows keep null, new rows carry the count', async () => {
      const path = join(scratch(), 'telemetry.sqlite');
      await (await openRecorder({ path })).close();
      const old = new Database(path); // back to the file as the release before version 3 left it
      old.exec('ALTER TABLE llm_calls DROP COLUMN tool_calls; ALTER TABLE llm_calls DROP COLUMN cache_write_prompt_tokens; ALTER TABLE llm_calls DROP COLUMN priority; ALTER TABLE llm_calls DROP COLUMN wait_ms; DELETE FROM schema_version WHERE version >= 3');
      old.prepare("INSERT INTO llm_calls (ts, scope, operation, event_kind, call_id, logical_call_id, status) VALUES (1, 'LLM', 'chat', 'attempt', 'old', 'old', 'ok')").run();
      old.close();
      const recorder = await openRecorder({ path });
      recorder.record(telemetryRow({ callId: 'new', toolCalls: 3 }));
      await recorder.close();
      const rows = inspect(path, (db) => db.prepare('SELECT call_id, tool_calls FROM llm_calls ORDER BY call_id').all());
      expect(rows).toEqual([
        { call_id: 'new', tool_calls: 3 },
        { call_id: 'old', tool_calls: null },
      ]);
      const versions = inspect(path, (db) => db.prepare('SELECT version FROM schema_version').pluck().all());
      expect(versions).toContain(3);
    });

    it('migrates a file from before cache writes (version 4): old rows keep null, new rows carry them', async () => {
      const path = join(scratch(), 'telemetry.sqlite');
      await (await openRecorder({ path })).close();
      const old = new Database(path); // back to the file as the release before version 4 left it
      old.exec('ALTER TABLE llm_calls DROP COLUMN cache_write_prompt_tokens; ALTER TABLE llm_calls DROP COLUMN priority; ALTER TABLE llm_calls DROP COLUMN wait_ms; DELETE FROM schema_version WHERE version >= 4');
      old.prepare("INSERT INTO llm_calls (ts, scope, operation, event_kind, call_id, logical_call_id, status, source, prompt_tokens) VALUES (1, 'LLM', 'chat', 'attempt', 'old', 'old', 'ok', 'qwen', 50)").run();
      old.close();
      // A file rotated before version 4 is reported as it is: no cache writes.
      expect((await summarize({ path })).promptCacheBySource).toEqual({ qwen: { promptTokens: 50, cachedPromptTokens: 0, cacheWritePromptTokens: 0, savingUsd: 0 } });
      const recorder = await openRecorder({ path });
      recorder.record(telemetryRow({ callId: 'new', source: 'claude', eventKind: 'attempt', promptTokens: 900, cacheWritePromptTokens: 800, cachedPromptTokens: 0, cacheSavingUsd: 0 }));
      await recorder.close();
      await (await openRecorder({ path })).close();
      const rows = inspect(path, (db) => db.prepare('SELECT call_id, cache_write_prompt_tokens FROM llm_calls ORDER BY call_id').all());
      expect(rows).toEqual([
        { call_id: 'new', cache_write_prompt_tokens: 800 },
        { call_id: 'old', cache_write_prompt_tokens: null },
      ]);
      expect(inspect(path, (db) => db.prepare('SELECT version FROM schema_version ORDER BY version').pluck().all())).toEqual([1, 2, 3, 4, 5]);
    });

    it('migrates a file from before priority classes (version 5): old rows keep null, new rows carry priority and wait', async () => {
      const path = join(scratch(), 'telemetry.sqlite');
      await (await openRecorder({ path })).close();
      const old = new Database(path); // back to the file as the release before version 5 left it
      old.exec('ALTER TABLE llm_calls DROP COLUMN priority; ALTER TABLE llm_calls DROP COLUMN wait_ms; DELETE FROM schema_version WHERE version = 5');
      old.prepare("INSERT INTO llm_calls (ts, scope, operation, event_kind, call_id, logical_call_id, status) VALUES (1, 'LLM', 'chat', 'attempt', 'old', 'old', 'ok')").run();
      old.close();
      // A file rotated before version 5 is reported as it is: its tenants, without waits.
      expect((await summarize({ path })).tenants).toEqual({ '(none)': { calls: 1, failedCalls: 0, costUsd: 0, waitByPriority: {} } });
      const recorder = await openRecorder({ path });
      recorder.record(telemetryRow({ callId: 'new', priority: 'batch', waitMs: 250.5 }));
      await recorder.close();
      const rows = inspect(path, (db) => db.prepare('SELECT call_id, priority, wait_ms FROM llm_calls ORDER BY call_id').all());
      expect(rows).toEqual([
        { call_id: 'new', priority: 'batch', wait_ms: 250.5 },
        { call_id: 'old', priority: null, wait_ms: null },
      ]);
      expect(inspect(path, (db) => db.prepare('SELECT version FROM schema_version ORDER BY version').pluck().all())).toEqual([1, 2, 3, 4, 5]);
    });

    it('refuses a file written by a newer schema: warns, drops rows, does not crash', async () => {
      const path = join(scratch(), 'telemetry.sqlite');
      await (await openRecorder({ path })).close();
      const db = new Database(path);
      db.prepare('INSERT INTO schema_version (version, applied_at) VALUES (99, 0)').run();
      db.close();
      const warnings: string[] = [];
      const recorder = await openRecorder({ path, warn: (m) => warnings.push(m) });
      recorder.record(telemetryRow());
      await recorder.flush();
      expect(recorder.stats()).toEqual({ written: 0, dropped: 1, queued: 0 });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('schema version 99 is newer');
      expect(warnings[0]).toContain(path);
    });
  });

  describe('SqliteRecorder degradation', () => {
    for (const [what, pathOf] of [
      ['a path whose parent is a regular file', (dir: string) => {
        writeFileSync(join(dir, 'not-a-dir'), 'x');
        return join(dir, 'not-a-dir', 'telemetry.sqlite');
      }],
      ['a path under /proc', () => `/proc/pgw-${process.pid}-${Date.now()}/telemetry.sqlite`],
    ] as const) {
      it(`on ${what}: one warning naming the path, rows dropped and counted, record never throws`, async () => {
        const path = pathOf(scratch());
        const warnings: string[] = [];
        const recorder = await openRecorder({ path, warn: (m) => warnings.push(m), batchSize: 2 });
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toContain(`cannot open ${path}`);
        for (let i = 0; i < 5; i += 1) expect(() => recorder.record(telemetryRow())).not.toThrow();
        await recorder.flush();
        expect(recorder.stats()).toEqual({ written: 0, dropped: 5, queued: 0 });
        expect(warnings).toHaveLength(1);
        await recorder.close();
        expect(recorder.stats().dropped).toBe(5);
      });
    }

    it('writes again once the path becomes usable', async () => {
      const dir = scratch();
      const blocker = join(dir, 'later');
      writeFileSync(blocker, 'x');
      const path = join(blocker, 'telemetry.sqlite');
      const recorder = await openRecorder({ path, warn: () => {} });
      recorder.record(telemetryRow());
      await recorder.flush();
      rmSync(blocker);
      mkdirSync(blocker);
      const kept = telemetryRow();
      recorder.record(kept);
      await recorder.flush();
      expect(recorder.stats()).toEqual({ written: 1, dropped: 1, queued: 0 });
      expect(readRows(path).map((r) => r.callId)).toEqual([kept.callId]);
    });

    it('drops a malformed row alone, with a warning naming the field', async () => {
      const path = join(scratch(), 'telemetry.sqlite');
      const warnings: string[] = [];
      const recorder = await openRecorder({ path, warn: (m) => warnings.push(m) });
      const good = telemetryRow();
      recorder.record({ ...telemetryRow(), scope: undefined as unknown as string });
      recorder.record(good);
      await recorder.flush();
      expect(recorder.stats()).toEqual({ written: 1, dropped: 1, queued: 0 });
      expect(warnings[0]).toContain('field scope is required');
      expect(readRows(path).map((r) => r.callId)).toEqual([good.callId]);
    });

    it('stores lone surrogates of text and meta as U+FFFD', async () => {
      const path = join(scratch(), 'telemetry.sqlite');
      const recorder = await openRecorder({ path });
      recorder.record(telemetryRow({ error: 'cut \uD83D', meta: { ['k\uDE80']: 'v\uD83D' } }));
      await recorder.flush();
      const [stored] = readRows(path);
      expect(stored?.error).toBe('cut \uFFFD');
      expect(stored?.meta).toEqual({ 'k\uFFFD': 'v\uFFFD' });
    });

    it('on a full file: drops and counts the batches that do not fit, warns, never throws', async () => {
      const path = join(scratch(), 'telemetry.sqlite');
      const warnings: string[] = [];
      const recorder = await openRecorder({ path, maxBytes: 64 * 1024, rotateBytes: 0, batchSize: 20, warn: (m) => warnings.push(m) });
      for (let i = 0; i < 2_000; i += 1) recorder.record(telemetryRow({ responseText: 'z'.repeat(200) }));
      await recorder.flush();
      const stats = recorder.stats();
      expect(stats.written).toBeGreaterThan(0);
      expect(stats.dropped).toBeGreaterThan(0);
      expect(stats.written + stats.dropped).toBe(2_000);
      expect(countRows(path)).toBe(stats.written);
      expect(warnings.join('\n')).toMatch(/full/);
    });

    it('rejects bad options with a RangeError naming the option', async () => {
      await expect(SqliteRecorder.open({ path: '' })).rejects.toThrow(/path/);
      await expect(SqliteRecorder.open({ path: '/tmp/x.sqlite', rotateKeep: -1 })).rejects.toThrow(/rotateKeep/);
      await expect(SqliteRecorder.open({ path: '/tmp/x.sqlite', batchSize: 0 })).rejects.toThrow(/batchSize/);
      await expect(SqliteRecorder.open({ path: '/tmp/x.sqlite', thread: 'other' as 'main' })).rejects.toThrow(RangeError);
      await expect(SqliteRecorder.open({ path: '/tmp/x.sqlite', thread: 'other' as 'main' })).rejects.toThrow(/thread/);
    });
  });

  describe('SqliteRecorder rotation', () => {
    const text = 'r'.repeat(2_000);

    async function writeRows(recorder: SqliteRecorder, count: number) {
      for (let i = 0; i < count; i += 1) {
        recorder.record(telemetryRow({ responseText: text }));
        if (i % 10 === 9) await recorder.flush();
      }
      await recorder.flush();
    }

    it('renames a full file aside, starts a fresh one and keeps only the newest rotateKeep files', async () => {
      const dir = scratch();
      const path = join(dir, 'telemetry.sqlite');
      const recorder = await openRecorder({ path, rotateBytes: 64 * 1024, rotateKeep: 2, batchSize: 10 });
      await writeRows(recorder, 200);
      expect(recorder.stats()).toEqual({ written: 200, dropped: 0, queued: 0 });
      const rotated = rotatedFiles(path);
      expect(rotated).toHaveLength(2);
      for (const file of rotated) {
        expect(basename(file)).toMatch(/^telemetry\.\d{8}T\d{9}Z\.sqlite$/);
        expect(countRows(file)).toBeGreaterThan(10);
      }
      await recorder.close();
      expect(existsSync(path)).toBe(true);
      // Whole files leave; the kept ones hold the newest rows, ending with the live file's.
      const kept = [...rotated, path].flatMap((file) => readRows(file).map((r) => r.ts));
      expect(kept).toEqual([...kept].sort((a, b) => a - b));
      expect(kept.length).toBeLessThan(200);
    });

    it('keeps no rotated file with rotateKeep 0, and never rotates with rotateBytes 0', async () => {
      const dir = scratch();
      const pruned = await openRecorder({ path: join(dir, 'a.sqlite'), rotateBytes: 64 * 1024, rotateKeep: 0, batchSize: 10 });
      await writeRows(pruned, 100);
      expect(rotatedFiles(join(dir, 'a.sqlite'))).toEqual([]);
      const unrotated = await openRecorder({ path: join(dir, 'b.sqlite'), rotateBytes: 0, batchSize: 10 });
      await writeRows(unrotated, 100);
      expect(rotatedFiles(join(dir, 'b.sqlite'))).toEqual([]);
      await unrotated.close();
      expect(countRows(join(dir, 'b.sqlite'))).toBe(100);
    });

    it('postpones rotation while another connection holds the file open', async () => {
      const path = join(scratch(), 'telemetry.sqlite');
      const warnings: string[] = [];
      const recorder = await openRecorder({ path, rotateBytes: 64 * 1024, batchSize: 10, warn: (m) => warnings.push(m) });
      const reader = new Database(path);
      reader.prepare('SELECT COUNT(*) FROM llm_calls').get();
      await writeRows(recorder, 60);
      expect(rotatedFiles(path)).toEqual([]);
      expect(warnings.some((w) => w.includes('rotation postponed'))).toBe(true);
      reader.close();
      await writeRows(recorder, 10);
      expect(rotatedFiles(path)).toHaveLength(1);
      expect(recorder.stats()).toEqual({ written: 70, dropped: 0, queued: 0 });
    });
  });
});
