/**
 * The agents' binaries, fetched on demand from the npm registry into a cache outside the repository
 * by `scripts/fetch-npm-tool.sh` (PGW_TOOL_CACHE, default ~/.cache/pgw/npm-tools): the first run
 * installs, later runs reuse. A failed fetch throws with the script's output.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENTS, type AgentName } from './pins.js';

const SCRIPT = fileURLToPath(new URL('../../../scripts/fetch-npm-tool.sh', import.meta.url));

/** The path of agent `name`'s executable; installs it first when the cache lacks it. */
export function fetchAgent(name: AgentName, timeoutMs = 300_000): Promise<string> {
  const { spec, bin } = AGENTS[name];
  return new Promise((resolve, reject) => {
    execFile('bash', [SCRIPT, spec, bin], { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 4 << 20 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`fetching ${spec} failed (${error.message.split('\n')[0]}):\n${stderr.slice(-4_000)}`));
      resolve(path.join(stdout.trim(), bin));
    });
  });
}
