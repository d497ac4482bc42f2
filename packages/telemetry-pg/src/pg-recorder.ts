/** TelemetryRecorder on PostgreSQL (docs/architecture.md#telemetry): batched multi-row inserts through the core queue. */
import pg from 'pg';
import { TELEMETRY_COLUMNS, type RecorderQueueOptions, type TelemetryRow } from '@pgw/core';
import { inTransaction, type PartialWrite, QueuedRecorder, telemetryRowValues } from '@pgw/core/internal';
import { storeNames, type StoreNames } from './names.js';
import { migrate } from './schema.js';

export interface PgRecorderOptions extends RecorderQueueOptions {
  /** Connection string; the recorder creates (and on close ends) its own bounded pool. */
  dsn?: string;
  /** A pool of the application's; used as is (its own settings govern statement_timeout) and never ended. */
  pool?: pg.Pool;
  /** Default `public`; created when missing. */
  schema?: string;
  /** Default `llm_calls`. */
  table?: string;
  /** Server-side `statement_timeout` of the recorder's own connections (default 5000). */
  statementTimeoutMs?: number;
  /** Bound on opening a connection (default 5000). */
  connectTimeoutMs?: number;
  /** Connections of the recorder's own pool (default 2: writes are serial, one spare for an abandoned write). */
  poolMax?: number;
  /** `application_name` of the recorder's own connections (default `pgw-telemetry`). */
  applicationName?: string;
}

type Value = string | number | Date | null;

/** Postgres takes at most 65535 bind parameters per statement. */
const ROWS_PER_INSERT = Math.floor(65_535 / TELEMETRY_COLUMNS.length);
/** A network that swallows packets never delivers the server's statement_timeout; the client gives up a little later. */
const CLIENT_TIMEOUT_GRACE_MS = 1_000;
const COLUMN_LIST = TELEMETRY_COLUMNS.map(([name]) => name).join(', ');
const TS_INDEX = TELEMETRY_COLUMNS.findIndex(([name]) => name === 'ts');
const META_INDEX = TELEMETRY_COLUMNS.findIndex(([name]) => name === 'meta');
/** `\u0000` in JSON text that stands for a NUL (not preceded by an escaping backslash). */
const JSON_NUL = /(?<!\\)((?:\\\\)*)\\u0000/g;

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(`PgRecorder option ${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * SQLSTATE class 22 (data exception) or 23 (integrity constraint): this statement's values were
 * refused, the database itself is fine, so other rows of the batch can still go in.
 */
function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}

/** Postgres text and jsonb cannot hold NUL: it becomes U+FFFD rather than failing the whole batch. */
function encodeRow(row: TelemetryRow): Value[] {
  const values: Value[] = telemetryRowValues(row);
  for (let i = 0; i < values.length; i += 1) {
    const value = values[i];
    if (typeof value !== 'string') continue;
    values[i] = i === META_INDEX ? value.replace(JSON_NUL, '$1\\ufffd') : value.replaceAll('\0', '\uFFFD');
  }
  values[TS_INDEX] = new Date(values[TS_INDEX] as number);
  return values;
}

function insertSql(table: string, rows: number): string {
  const width = TELEMETRY_COLUMNS.length;
  const tuples = Array.from({ length: rows }, (_, r) => {
    const params = Array.from({ length: width }, (_, c) => `$${r * width + c + 1}`);
    return `(${params.join(', ')})`;
  });
  return `INSERT INTO ${table} (${COLUMN_LIST}) VALUES ${tuples.join(', ')}`;
}

export class PgRecorder extends QueuedRecorder<Value[]> {
  private readonly pool: pg.Pool;
  private readonly ownsPool: boolean;
  private readonly names: StoreNames;
  private migrated: Promise<void> | undefined;

  /**
   * Opens the recorder and migrates the table. A database that is down never throws here: it warns
   * and rows are dropped and counted until it answers (migration is retried before the next write).
   * Bad options throw a RangeError naming the option.
   */
  static async open(options: PgRecorderOptions): Promise<PgRecorder> {
    const recorder = new PgRecorder(options);
    try {
      await recorder.ensureMigrated();
    } catch (error) {
      recorder.queue.warn(`${describe(error)}; rows are dropped until the database answers`);
    }
    return recorder;
  }

  private constructor(options: PgRecorderOptions) {
    if ((options.dsn === undefined) === (options.pool === undefined)) {
      throw new RangeError('PgRecorder needs exactly one of the options dsn and pool');
    }
    const names = storeNames('PgRecorder', options.schema, options.table);
    const statementTimeoutMs = positiveInteger('statementTimeoutMs', options.statementTimeoutMs, 5_000);
    const connectTimeoutMs = positiveInteger('connectTimeoutMs', options.connectTimeoutMs, 5_000);
    const poolMax = positiveInteger('poolMax', options.poolMax, 2);
    super({ ...options, label: `@pgw/telemetry-pg (${names.schema}.${names.table})` });
    this.names = names;
    this.ownsPool = options.pool === undefined;
    this.pool =
      options.pool ??
      new pg.Pool({
        connectionString: options.dsn,
        max: poolMax,
        application_name: options.applicationName ?? 'pgw-telemetry',
        options: `-c statement_timeout=${statementTimeoutMs}`,
        connectionTimeoutMillis: connectTimeoutMs,
        query_timeout: statementTimeoutMs + CLIENT_TIMEOUT_GRACE_MS,
      });
    // An idle connection the server drops (restart, pg_terminate_backend) is reported here; unheard, it would crash the process.
    if (this.ownsPool) this.pool.on('error', (error) => this.queue.warn(`idle connection lost: ${describe(error)}`));
  }

  protected encode(row: TelemetryRow): Value[] {
    return encodeRow(row);
  }

  /** Ends the recorder's own pool (an in-flight statement ends by its timeout); an application's pool is left open. */
  protected async release(): Promise<void> {
    if (this.ownsPool) await this.pool.end();
  }

  private ensureMigrated(): Promise<void> {
    this.migrated ??= migrate(this.pool, this.names).catch((error: unknown) => {
      this.migrated = undefined;
      throw new Error(`cannot prepare ${this.names.schema}.${this.names.table}: ${describe(error)}`, { cause: error });
    });
    return this.migrated;
  }

  /** One bad row must not cost its batch: a batch refused for its data is retried row by row. */
  protected async write(batch: Value[][]): Promise<PartialWrite | void> {
    await this.ensureMigrated();
    try {
      await this.insertBatch(batch);
    } catch (error) {
      if (!isDataError(error)) throw error;
      return this.insertRowByRow(batch);
    }
  }

  private async insertBatch(batch: Value[][]): Promise<void> {
    if (batch.length <= ROWS_PER_INSERT) {
      await this.insert(this.pool, batch);
      return;
    }
    await inTransaction(() => this.pool.connect(), async (client) => {
      for (let at = 0; at < batch.length; at += ROWS_PER_INSERT) {
        await this.insert(client, batch.slice(at, at + ROWS_PER_INSERT));
      }
    });
  }

  /** Rows are written one at a time; a failure that is not about the row's data gives up on the rest. */
  private async insertRowByRow(batch: Value[][]): Promise<PartialWrite> {
    let rejected = 0;
    let reason = '';
    for (let at = 0; at < batch.length; at += 1) {
      try {
        await this.insert(this.pool, [batch[at]!]);
      } catch (error) {
        reason = describe(error);
        if (!isDataError(error)) return { rejected: rejected + batch.length - at, reason };
        rejected += 1;
      }
    }
    return { rejected, reason };
  }

  private async insert(target: pg.Pool | pg.PoolClient, rows: Value[][]): Promise<void> {
    await target.query(insertSql(this.names.qualifiedTable, rows.length), rows.flat());
  }
}
