import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runDemo } from '../src/demo.js';
import { renderSummary } from '../src/report.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-demo-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const silent = () => ({ tick() {}, done() {} });

describe('the demo', () => {
  it('runs governed calls and an embedding batch on embedded defaults, and writes telemetry to SQLite', async () => {
    const sqlitePath = path.join(dir, 'nested', 'demo.sqlite');
    const result = await runDemo({ calls: 40, concurrency: 8, embedTexts: 70, sqlitePath, progress: silent });

    expect(result.succeeded + Object.values(result.failuresByType).reduce((a, b) => a + b, 0)).toBe(40);
    expect(result.succeeded).toBeGreaterThan(30);
    // The revoked source is tried and refused; its calls fail over, so some calls took more than one attempt.
    expect(result.telemetry.attempts).toBeGreaterThan(40);
    expect(result.retries).toBeGreaterThan(0);
    expect(result.sources.steady).toBeGreaterThan(0);
    expect(result.sources.revoked).toBeUndefined();
    expect(result.latencyMs.p95).toBeGreaterThanOrEqual(result.latencyMs.p50);
    expect(result.costUsd).toBeGreaterThan(0);
    expect(result.embeddings).toEqual({ vectors: 70, dim: 16, attempts: 3, retries: 0 });
    // Retries are re-attempts of a call: the embedding call's three batches add none, so the run's
    // retries are the chat calls' alone; a chat call's retries are at most its attempts beyond the first.
    expect(result.telemetry.operations.embed).toEqual({ calls: 1, attempts: 3, retries: 0, failedCalls: 0 });
    expect(result.telemetry.retries).toBe(result.retries);
    expect(result.attempts).toBe(result.telemetry.attempts - 3);
    expect(result.retries).toBeLessThanOrEqual(result.attempts - result.calls);
    expect(fs.statSync(sqlitePath).size).toBeGreaterThan(0);
    expect(result.toolRound).toMatchObject({
      calls: ['weather({"city":"Paris"})'],
      results: ['{"city":"Paris","tempC":21,"sky":"sunny"}'],
      answer: expect.stringContaining('sunny in Paris'),
      steps: 2,
    });

    // The flaky source's 5xx/429/truncations and the revoked key failed attempts, whatever became of the calls.
    expect(result.telemetry.attemptErrorsByType.TransientError).toBeGreaterThan(0);
    expect(result.telemetry.attemptErrorsBySource.revoked).toEqual({ SourceDeadError: expect.any(Number) });

    const text = renderSummary(result);
    const headings = ['Summary (chat calls', 'Failures by type', 'Failed attempts by type', 'Answers by source', 'Embeddings', 'Tool round', sqlitePath];
    for (const heading of headings) {
      expect(text).toContain(heading);
    }
    const attemptsSection = text.slice(text.indexOf('Failed attempts by type'), text.indexOf('Answers by source'));
    expect(attemptsSection).toMatch(/^ {2}TransientError +\d+ {3}.*flaky \d+/m);
    expect(attemptsSection).toMatch(/^ {2}SourceDeadError +\d+ {3}revoked \d+$/m);
    expect(attemptsSection).toMatch(/^ {2}cancelled attempts +\d+ {3}\(not failures\)$/m);
    expect(text).toContain('pnpm pgw chat --mock');
    expect(text).toContain('pnpm pgw serve --mock');
  });
});
