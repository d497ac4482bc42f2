import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { startMockUpstream } from './server.js';
import type { MockScript } from './types.js';

const USAGE = 'usage: mock-upstream [--port 8787] [--host 127.0.0.1] [--script script.json] [--seed 1]';

/** Used when no --script is given: one healthy and one flaky source. */
const DEFAULT_SCRIPT: MockScript = {
  sources: {
    good: {},
    flaky: { failureRate: 0.3, failureSteps: [{ kind: 'status', status: 503 }, { kind: 'rate_limit', retryAfter: '1' }] },
  },
};

/** Starts the mock from command-line flags and runs it until SIGINT/SIGTERM. */
export async function runCli(argv: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      // `pnpm start -- --port 8787` hands the script its `--` too.
      args: argv[0] === '--' ? argv.slice(1) : argv,
      options: {
        port: { type: 'string', default: '8787' },
        host: { type: 'string', default: '127.0.0.1' },
        script: { type: 'string' },
        seed: { type: 'string', default: '1' },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    return fail(`${(error as Error).message}\n${USAGE}`);
  }
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = Number(values.port);
  const seed = Number(values.seed);
  if (!Number.isInteger(port) || port < 0 || port > 65535) return fail(`--port: not a port number: ${values.port}`);
  if (!Number.isInteger(seed)) return fail(`--seed: not an integer: ${values.seed}`);

  let script = DEFAULT_SCRIPT;
  if (values.script !== undefined) {
    try {
      script = JSON.parse(await readFile(values.script, 'utf8')) as MockScript;
    } catch (error) {
      return fail(`--script ${values.script}: ${(error as Error).message}`);
    }
  }

  const mock = await startMockUpstream({ port, host: values.host, script, seed }).catch((error: Error) => {
    fail(error.message);
    return undefined;
  });
  if (!mock) return;
  console.log(`mock-upstream listening on ${mock.url}`);
  for (const name of mock.sourceNames()) {
    console.log(`  ${name}: openai ${mock.baseUrl(name)}  ocr ${mock.url}/${name}`);
  }

  const stop = (): void => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    void mock.close().then(() => console.log('mock-upstream stopped'));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

function fail(message: string): void {
  console.error(`mock-upstream: ${message}`);
  process.exitCode = 2;
}
