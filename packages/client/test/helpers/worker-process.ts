/** Worker processes of the fleet tests: spawned on a fixture script, started together, each printing one JSON report. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));

export interface WorkerProcess<Report> {
  child: ChildProcess;
  /** The worker built its client and waits for "go" on stdin. */
  ready: Promise<void>;
  /** Its last stdout line, parsed, once it exited 0. */
  report: Promise<Report>;
}

/** Runs `script` (a fixture under test/fixtures) with the parent's env plus `env`. */
export function startWorker<Report>(script: URL, env: Record<string, string>): WorkerProcess<Report> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@pgw/source', fileURLToPath(script)], {
    cwd: PACKAGE_DIR,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let markReady: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.startsWith('ready\n')) markReady();
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const report = new Promise<Report>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve(JSON.parse(stdout.split('\n').filter(Boolean).at(-1)!) as Report);
      else reject(new Error(`worker exited with ${code}: ${stderr}`));
    });
  });
  return { child, ready, report };
}

/** Starts `count` workers (`envOf` adds each one's own env), waits until each is ready, then lets them all go at once. */
export async function startFleet<Report>(
  count: number,
  script: URL,
  env: Record<string, string>,
  envOf: (index: number) => Record<string, string> = () => ({}),
): Promise<Report[]> {
  const workers = Array.from({ length: count }, (_, index) => startWorker<Report>(script, { ...env, ...envOf(index) }));
  await Promise.all(workers.map((worker) => worker.ready));
  for (const worker of workers) worker.child.stdin!.write('go\n');
  return Promise.all(workers.map((worker) => worker.report));
}
