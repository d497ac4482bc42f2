/**
 * The agents' binaries, fetched on demand from the npm registry into a cache outside the repository
 * by `scripts/fetch-npm-tool.sh` (PGW_TOOL_CACHE, default ~/.cache/pgw/npm-tools): the first run
 * installs, later runs reuse. A failed fetch throws with the script's output.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AGENTS, LIBRARIES, type AgentName, type LibraryName } from './pins.js';

const SCRIPT = fileURLToPath(new URL('../../../scripts/fetch-npm-tool.sh', import.meta.url));

/** The path of agent `name`'s executable; installs it first when the cache lacks it. */
export async function fetchAgent(name: AgentName, timeoutMs = 300_000): Promise<string> {
  const { spec, bin } = AGENTS[name];
  return path.join(await fetchTool([spec, bin], timeoutMs), bin);
}

/**
 * A module of library `name`'s install, imported from the cache by its ESM entry (as an application's
 * `import` loads it): the library itself, or `specifier`, a package it brought or a subpath of one
 * (`@langchain/core/messages`). Installs the library first when the cache lacks it.
 */
export async function importLibrary<T = Record<string, unknown>>(name: LibraryName, specifier: string = LIBRARIES[name].module, timeoutMs = 300_000): Promise<T> {
  const nodeModules = path.dirname(await fetchTool([LIBRARIES[name].spec], timeoutMs));
  return (await import(pathToFileURL(await esmEntry(nodeModules, specifier)).href)) as T;
}

/** The file of `specifier`'s ESM entry in `nodeModules`: a package's `.` or the subpath of it that `specifier` names, as its `exports` map says. */
export async function esmEntry(nodeModules: string, specifier: string): Promise<string> {
  const parts = specifier.split('/');
  const length = specifier.startsWith('@') ? 2 : 1;
  const folder = path.join(nodeModules, ...parts.slice(0, length));
  const subpath = ['.', ...parts.slice(length)].join('/');
  const { exports } = JSON.parse(await readFile(path.join(folder, 'package.json'), 'utf8')) as { exports?: Record<string, { import?: string | { default: string } }> };
  const entry = exports?.[subpath]?.import;
  if (entry === undefined) throw new Error(`${specifier}: its package's exports map has no ESM entry for ${subpath}`);
  return path.join(folder, typeof entry === 'string' ? entry : entry.default);
}

/** The bin folder `scripts/fetch-npm-tool.sh` prints for `args` (a spec and maybe a bin). */
function fetchTool(args: readonly string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('bash', [SCRIPT, ...args], { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 4 << 20 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`fetching ${args[0]} failed (${error.message.split('\n')[0]}):\n${stderr.slice(-4_000)}`));
      resolve(stdout.trim());
    });
  });
}
