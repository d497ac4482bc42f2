/** The main job: a batch of governed chat calls and an embedding batch on embedded defaults. */
import fs from 'node:fs';
import path from 'node:path';
import { EmbeddingClient, GatewayClient, gatherBounded, type LLMResponse } from '@pgw/client';
import { summarize, type SqliteSummarySource } from '@pgw/telemetry-sqlite';
import { demoEnv, startDemoUpstream } from './upstream.js';
import { terminal, type Progress } from './terminal.js';

export interface DemoOptions {
  calls: number;
  concurrency: number;
  embedTexts: number;
  sqlitePath: string;
  /** Progress output; default a bar on stderr. */
  progress?: (label: string, total: number) => Progress;
  /** What the library warns about; default each warning once on stderr, after the progress line. */
  warn?: (message: string) => void;
}

export interface DemoResult {
  /** Chat calls: logical calls, those answered, their attempts and re-attempts (from telemetry). */
  calls: number;
  succeeded: number;
  attempts: number;
  retries: number;
  failuresByType: Record<string, number>;
  sources: Record<string, number>;
  latencyMs: { p50: number; p95: number };
  costUsd: number;
  /** The embedding call: one attempt per batch, plus its re-attempts (`retries`). */
  embeddings: { vectors: number; dim: number; attempts: number; retries: number };
  /** One runTools round: the calls the model asked for, what the tools returned, the final answer. */
  toolRound: { calls: string[]; results: string[]; answer: string; steps: number; logicalCallId: string };
  telemetry: Awaited<ReturnType<typeof summarize>>;
  sqlitePath: string;
  elapsedMs: number;
}

const QUESTIONS = ['What is a circuit breaker?', 'Why honour Retry-After?', 'What does a lease protect?', 'Explain AIMD.'];

function nearestRank(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const started = performance.now();
  const stderr = terminal();
  const progress = options.progress ?? stderr.progress;
  const warn = options.warn ?? stderr.warn;
  fs.mkdirSync(path.dirname(options.sqlitePath), { recursive: true });
  for (const stale of [options.sqlitePath, `${options.sqlitePath}-wal`, `${options.sqlitePath}-shm`]) fs.rmSync(stale, { force: true });

  const mock = await startDemoUpstream();
  const env = demoEnv(mock, options.sqlitePath);
  try {
    const responses: LLMResponse[] = [];
    const failuresByType: Record<string, number> = {};
    {
      await using chat = await GatewayClient.fromEnv('LLM', { env, warn });
      const bar = progress('chat', options.calls);
      await gatherBounded(
        Array.from({ length: options.calls }, (_, i) => async () => {
          try {
            responses.push(
              await chat.chat([{ role: 'user', content: `${QUESTIONS[i % QUESTIONS.length]} (#${i})` }], {
                sessionId: 'demo',
                tenantId: i % 2 === 0 ? 'team-a' : 'team-b',
                cacheBypass: true,
              }),
            );
          } catch (error) {
            const name = error instanceof Error ? error.name : 'unknown';
            failuresByType[name] = (failuresByType[name] ?? 0) + 1;
          } finally {
            bar.tick();
          }
        }),
        { concurrency: options.concurrency },
      );
      bar.done();
    }

    let embeddings = { vectors: 0, dim: 0, attempts: 0 };
    {
      await using embed = await EmbeddingClient.fromEnv('EMBED', { env, warn });
      const bar = progress('embed', 1);
      const texts = Array.from({ length: options.embedTexts }, (_, i) => `document ${i}: governed embeddings`);
      const result = await embed.embed(texts);
      bar.tick();
      bar.done();
      embeddings = { vectors: result.vectors.length, dim: result.vectors[0]?.length ?? 0, attempts: result.callStats.attempts };
    }

    let toolRound: DemoResult['toolRound'];
    {
      await using tools = await GatewayClient.fromEnv('TOOLS', { env, warn });
      const weather = {
        description: 'Current weather of a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        execute: ({ city }: { city: string }) => ({ city, tempC: 21, sky: 'sunny' }),
      };
      const run = await tools.runTools([{ role: 'user', content: 'What should I wear in Paris today?' }], { tools: { weather } });
      const first = run.steps[0]!;
      toolRound = {
        calls: (first.response.toolCalls ?? []).map((call) => `${call.name}(${call.arguments})`),
        results: first.toolResults.map((result) => result.content),
        answer: run.response.content,
        steps: run.steps.length,
        logicalCallId: run.logicalCallId,
      };
    }

    const latencies = responses.map((r) => r.callStats.totalLatencyMs).sort((a, b) => a - b);
    const sources: Record<string, number> = {};
    for (const r of responses) sources[r.source] = (sources[r.source] ?? 0) + 1;
    const source: SqliteSummarySource = { path: options.sqlitePath };
    const telemetry = await summarize(source);
    const chatCalls = telemetry.operations.chat;
    return {
      calls: options.calls,
      succeeded: responses.length,
      attempts: chatCalls?.attempts ?? 0,
      retries: chatCalls?.retries ?? 0,
      failuresByType,
      sources,
      latencyMs: { p50: nearestRank(latencies, 50), p95: nearestRank(latencies, 95) },
      costUsd: responses.reduce((sum, r) => sum + (r.costUsd ?? 0), 0),
      embeddings: { ...embeddings, retries: telemetry.operations.embed?.retries ?? 0 },
      toolRound,
      telemetry,
      sqlitePath: options.sqlitePath,
      elapsedMs: performance.now() - started,
    };
  } finally {
    await mock.close();
  }
}
