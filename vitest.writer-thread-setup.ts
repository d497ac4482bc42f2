// Global setup of every package's tests. A SQLite recorder opened from TypeScript source runs its
// writer thread from the built entry (packages/telemetry-sqlite/src/writer-thread.ts says why), so
// the package is built first when that entry is missing or older than the sources it comes from.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(fileURLToPath(import.meta.url));
const entry = path.join(root, 'packages/telemetry-sqlite/dist/sqlite-worker.js');
const sources = ['packages/telemetry-sqlite/src', 'packages/core/src'].map((dir) => path.join(root, dir));

function newestSourceMs(): number {
  return Math.max(
    ...sources.flatMap((dir) => fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((file) => fs.statSync(path.join(dir, file)).mtimeMs)),
  );
}

export default function buildSqliteWorker(): void {
  if (fs.existsSync(entry) && fs.statSync(entry).mtimeMs >= newestSourceMs()) return;
  execFileSync('pnpm', ['exec', 'turbo', 'run', 'build', '--filter=@pgw/telemetry-sqlite', '--output-logs=errors-only'], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
  });
  // A build restored from turbo's cache keeps old times: stamp the entry as built from today's sources.
  const now = new Date();
  fs.utimesSync(entry, now, now);
}
