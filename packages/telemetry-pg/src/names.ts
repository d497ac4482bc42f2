/** Where the Postgres store lives: validated schema and table names, quoted for SQL. */
import pg from 'pg';

/** Plain identifiers only, short enough that derived index names stay under Postgres' 63-byte limit. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,39}$/;

export interface StoreNames {
  schema: string;
  table: string;
  /** `"schema"."table"` */
  qualifiedTable: string;
  /** `"schema"."pgw_schema_version"` */
  qualifiedVersions: string;
  quotedSchema: string;
  /** A quoted index name derived from the table name. */
  index(suffix: string): string;
}

export function storeNames(caller: string, schema = 'public', table = 'llm_calls'): StoreNames {
  for (const [key, value] of [
    ['schema', schema],
    ['table', table],
  ] as const) {
    if (typeof value !== 'string' || !IDENTIFIER.test(value)) {
      throw new RangeError(`${caller} option ${key} must be a plain identifier (letters, digits, _; at most 40), got ${String(value)}`);
    }
  }
  const quotedSchema = pg.escapeIdentifier(schema);
  return {
    schema,
    table,
    quotedSchema,
    qualifiedTable: `${quotedSchema}.${pg.escapeIdentifier(table)}`,
    qualifiedVersions: `${quotedSchema}.pgw_schema_version`,
    index: (suffix) => pg.escapeIdentifier(`${table}_${suffix}`),
  };
}
