/**
 * The repository README's "Use it" snippet, extracted and run as written: first parsed by the Node
 * running the tests (a syntax the supported Node lacks, like `await using` on Node 20, fails here),
 * then run in a child process against the loopback mock, its source configured by env keys only.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '@pgw/mock-upstream';

const run = promisify(execFile);
const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(path.join(packageDir, '../../README.md'), 'utf8');

/** The first ```ts block after the "## Use it" heading. */
function useItSnippet(): string {
  const section = readme.split(/^## Use it$/m)[1];
  const code = section?.match(/```ts\n([\s\S]*?)```/)?.[1];
  if (code === undefined) throw new Error('README.md: no ```ts block under "## Use it"');
  return code;
}

let mock: MockUpstream;
beforeAll(async () => {
  mock = await startMockUpstream({ port: 0, script: { sources: { main: { content: 'leases come back' } } } });
});
afterAll(() => mock.close());

it("the README's usage snippet parses on this Node and runs against the mock", async () => {
  // Inside the package directory, so `@pgw/client` resolves to this package by self-reference.
  const file = path.join(packageDir, `.readme-snippet-${randomUUID()}.mjs`);
  writeFileSync(file, useItSnippet());
  try {
    await run(process.execPath, ['--check', file]);
    const { stdout } = await run(process.execPath, ['--conditions=@pgw/source', '--import', 'tsx', file], {
      cwd: packageDir,
      env: {
        ...process.env,
        LLM__SOURCE__MAIN__BASE_URL: mock.baseUrl('main'),
        LLM__SOURCE__MAIN__MODEL: 'gpt-4o-mini',
        PGW_LIMITER_BACKEND: 'memory',
        PGW_CACHE_BACKEND: 'memory',
        PGW_TELEMETRY_BACKEND: 'none',
      },
      timeout: 60_000,
    });
    // The answer printed by chat(), then the same text streamed delta by delta.
    expect(stdout).toMatch(/^leases come back main \{/);
    expect(stdout.trimEnd().endsWith('leases come back')).toBe(true);
    expect(mock.counters('main').chat).toBe(2);
  } finally {
    rmSync(file, { force: true });
  }
}, 90_000);
