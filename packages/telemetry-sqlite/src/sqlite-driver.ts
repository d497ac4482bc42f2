/**
 * What failed when a telemetry file cannot be opened: the driver (better-sqlite3's native binary does
 * not load on this Node, typically built for another Node's ABI) or the path. Decided by opening an
 * in-memory database, which needs the driver and no path; only ever run after an open failed.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';

const DRIVER = 'better-sqlite3';

/** Node majors of the ABIs (NODE_MODULE_VERSION) a binary is likely built for. */
const NODE_OF_ABI: Record<string, number> = { 115: 20, 127: 22, 137: 24 };

/**
 * The error for a failed open of `path` when the driver is at fault (naming the package, the Node its
 * binary is built for and this one); undefined when the driver loads, so the path is what failed.
 */
export function driverFailure(path: string, error: unknown, nativeBinding?: string): Error | undefined {
  if (driverLoads(nativeBinding)) return undefined;
  const binary = nativeBinding ?? defaultBinary();
  const abi = binary === undefined ? undefined : abiOf(binary);
  const builtFor = abi === undefined ? 'an unknown Node' : `NODE_MODULE_VERSION ${abi}${NODE_OF_ABI[abi] ? ` (Node ${NODE_OF_ABI[abi]})` : ''}`;
  return new Error(
    `the SQLite driver ${DRIVER} cannot load, so ${path} stays closed: its native binary ${binary ?? '(not found)'} is built for ${builtFor}, ` +
      `this is Node ${process.version} (NODE_MODULE_VERSION ${process.versions.modules}); rebuild it for this Node ` +
      `(\`npm rebuild ${DRIVER}\` or \`pnpm rebuild ${DRIVER}\`): ${error instanceof Error ? error.message : String(error)}`,
    { cause: error },
  );
}

function driverLoads(nativeBinding: string | undefined): boolean {
  try {
    new Database(':memory:', nativeBinding === undefined ? {} : { nativeBinding }).close();
    return true;
  } catch {
    return false;
  }
}

/** Where the package builds its binary (the first place its loader looks). */
function defaultBinary(): string | undefined {
  try {
    return join(dirname(createRequire(import.meta.url).resolve(`${DRIVER}/package.json`)), 'build/Release/better_sqlite3.node');
  } catch {
    return undefined;
  }
}

/** The ABI a non-N-API addon registers itself for: its `node_register_module_v<ABI>` symbol. */
function abiOf(binary: string): string | undefined {
  try {
    return readFileSync(binary, 'latin1').match(/node_register_module_v(\d+)/)?.[1];
  } catch {
    return undefined;
  }
}
