/** A file that cannot be opened says what failed: the path, or the SQLite driver on this Node. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteWriter, type SqliteWriterConfig } from '../src/sqlite-writer.js';
import { tempDir } from './support.js';

let temp: ReturnType<typeof tempDir>;
afterEach(() => temp.remove());

const writer = (config: Partial<SqliteWriterConfig>) =>
  new SqliteWriter({ path: '', batchSize: 10, rotateBytes: 0, rotateKeep: 1, maxBytes: 0, busyTimeoutMs: 100, ...config }, Date.now, () => {});

function openError(config: Partial<SqliteWriterConfig>): Error {
  try {
    writer(config).open();
  } catch (error) {
    return error as Error;
  }
  throw new Error('the file opened');
}

/** Opens a file in a fresh directory with better-sqlite3 pointed at a native binary of these contents. */
function openWithDriver(contents: string): { binary: string; message: string } {
  temp = tempDir();
  const binary = join(temp.dir, 'better_sqlite3.node');
  writeFileSync(binary, contents);
  return { binary, message: openError({ path: join(temp.dir, 'telemetry.sqlite'), nativeBinding: binary }).message };
}

describe('opening a telemetry file that cannot be opened', () => {
  it('a path under a missing directory: names the path and its directory, not the driver', () => {
    temp = tempDir();
    const path = join(temp.dir, 'missing', 'telemetry.sqlite');
    const { message } = openError({ path });
    expect(message).toContain(`cannot open ${path}`);
    expect(message).toContain(`its directory ${join(temp.dir, 'missing')} must exist and be writable`);
    expect(message).not.toContain('better-sqlite3');
  });

  it('a driver that cannot load: names the package, the Node its binary was built for and this one, not the path', () => {
    // Not a loadable library, but carrying the registration symbol a Node 20 build exports.
    const { binary, message } = openWithDriver('not an ELF file\0node_register_module_v115\0');
    expect(message).toContain('the SQLite driver better-sqlite3 cannot load');
    expect(message).toContain(`${binary} is built for NODE_MODULE_VERSION 115 (Node 20)`);
    expect(message).toContain(`this is Node ${process.version} (NODE_MODULE_VERSION ${process.versions.modules})`);
    expect(message).not.toContain('directory');
  });

  it('a driver binary of unknown build: says so', () => {
    const { binary, message } = openWithDriver('not an ELF file');
    expect(message).toContain(`${binary} is built for an unknown Node`);
  });
});
