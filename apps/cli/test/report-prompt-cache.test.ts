/** `pgw report` shows the prompt cache's share and saving per source and per tenant. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TelemetryRow } from '@pgw/core';
import { afterAll, describe, expect, test } from 'vitest';
import { EXIT } from '../src/exit-codes.js';
import { removeTempDirs, runCli, tempDir } from './run-cli.js';
import { FIXTURE_START, telemetryFile } from './telemetry-fixture.js';

afterAll(removeTempDirs);

function attempt(i: number, fields: Partial<TelemetryRow>): TelemetryRow {
  return {
    ts: FIXTURE_START + i,
    scope: 'LLM',
    operation: 'chat',
    eventKind: 'attempt',
    callId: `call-${i}`,
    logicalCallId: `call-${i}`,
    status: 'ok',
    usageSource: 'measured',
    completionTokens: 10,
    ...fields,
  };
}

/** `deepseek` serves 3 000 of 4 000 prompt tokens from its cache, `vllm` none; tenants split them differently. */
const ROWS: TelemetryRow[] = [
  attempt(1, { source: 'deepseek', tenantId: 'acme', promptTokens: 2_000, cachedPromptTokens: 2_000, cacheSavingUsd: 0.0004 }),
  attempt(4, { source: 'claude', tenantId: 'acme', promptTokens: 1_500, cachedPromptTokens: 0, cacheWritePromptTokens: 1_200, cacheSavingUsd: 0 }),
  attempt(2, { source: 'deepseek', tenantId: 'globex', promptTokens: 2_000, cachedPromptTokens: 1_000, cacheSavingUsd: 0.0002 }),
  attempt(3, { source: 'vllm', tenantId: 'globex', promptTokens: 1_000 }),
];

describe('pgw report: prompt cache', () => {
  test('prints the cached share and the saving per source and per tenant, and puts them in the HTML page', async () => {
    const file = await telemetryFile(ROWS);
    const html = join(tempDir(), 'report.html');
    const run = await runCli(['report', '--sqlite', file, '--html', html]);
    expect(run.code, run.stderr).toBe(EXIT.ok);
    expect(run.stdout).toMatch(/Prompt cache per source \(saving in USD\)\n.*prompt tokens\s+cached\s+cached share\s+cache writes\s+saving\n/);
    expect(run.stdout).toMatch(/deepseek\s+4,000\s+3,000\s+75\.0%\s+0\s+\$0\.0006\n/);
    expect(run.stdout).toMatch(/vllm\s+1,000\s+0\s+0\.0%\s+0\s+\$0\n/);
    expect(run.stdout).toMatch(/claude\s+1,500\s+0\s+0\.0%\s+1,200\s+\$0\n/);
    expect(run.stdout).toMatch(/Prompt cache per tenant \(saving in USD\)\n(.*\n){2}\s+acme\s+3,500\s+2,000\s+57\.1%\s+1,200\s+\$0\.0004\n\s+globex\s+3,000\s+1,000\s+33\.3%\s+0\s+\$0\.0002\n/);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('<h2>Prompt cache</h2>');
    expect(page).toMatch(/<td>deepseek<\/td><td class="n">4,000<\/td><td class="n">3,000<\/td><td class="n">75\.0%<\/td>/);
  });
});
