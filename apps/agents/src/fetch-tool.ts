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

/** Library `name`'s module, imported from the cache (its ESM entry, as an application's `import` loads it); installs it first when the cache lacks it. */
export async function importLibrary<T = Record<string, unknown>>(name: LibraryName, timeoutMs = 300_000): Promise<T> {
  const { spec, module } = LIBRARIES[name];
  const nodeModules = path.dirname(await fetchTool([spec], timeoutMs));
  const manifest = path.join(nodeModules, module, 'package.json');
  const { exports } = JSON.parse(await readFile(manifest, 'utf8')) as { exports: { '.': { import: string } } };
  return (await import(pathToFileURL(path.join(path.dirname(manifest), exports['.'].import)).href)) as T;
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
