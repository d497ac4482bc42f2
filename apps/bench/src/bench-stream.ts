/**
 * Benchmark 2: streaming. Governed `chatStream` (memory backends, liveness limits armed) against raw undici
 * with a minimal split-on-blank-line SSE parser, at 1 and at many concurrent streams, for an
 * upstream that writes one token per packet and one that writes the whole stream in one burst.
 * Reports time to first token (p50/p99 over every measured stream) and tokens/s.
 */
import { GatewayClient } from '@pgw/client';
import { createAgent } from '@pgw/http';
import { Pool } from 'undici';
import { API_KEY, benchSettings, uniqueScope } from './gateway-settings.js';
import { interleave, percentile, ratio, runConcurrent, type Contender } from './harness.js';
import { EXPECTED_STREAM_ANSWER, MESSAGES, MODEL, STREAM_TOKENS } from './mock-script.js';
import { ZERO_ROUTES, type ZeroUpstream } from './zero-upstream.js';

export const STREAM_CONTENDERS = { raw: 'raw undici + minimal SSE split', governed: 'gateway chatStream (memory)' } as const;
export type StreamShape = 'packet' | 'burst';

export interface StreamBenchOptions {
  upstream: ZeroUpstream;
  /** Concurrent streams per level, e.g. [1, 500]. */
  levels: readonly number[];
  shapes: readonly StreamShape[];
  rounds: number;
  /** The shortest round at 1 stream (one stream after another until it has passed). */
  minRoundMs: number;
}

export interface StreamRow {
  name: string;
  streamsPerSecond: number;
  tokensPerSecond: number;
  ratioVsRaw: number;
  ttftP50Ms: number;
  ttftP99Ms: number;
  cpuUsPerStream: number;
  rates: number[];
  cpuUs: number[];
}

export interface StreamLevel {
  shape: StreamShape;
  streams: number;
  rows: StreamRow[];
}

export interface StreamBenchResult {
  tokensPerStream: number;
  rounds: number;
  levels: StreamLevel[];
}

/** One stream: resolves once it is complete and checked; calls `firstToken` at its first content. */
type Streamer = { name: string; stream(firstToken: () => void): Promise<void>; close(): Promise<void> };

function check(contender: string, content: string): void {
  if (content !== EXPECTED_STREAM_ANSWER) {
    throw new Error(`${contender}: stream assembled ${content.length} chars, expected ${EXPECTED_STREAM_ANSWER.length}`);
  }
}

function rawStreamer(baseUrl: string, connections: number): Streamer {
  const url = new URL(`${baseUrl}/chat/completions`);
  const pool = new Pool(url.origin, { connections });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` };
  const payload = JSON.stringify({ model: MODEL, messages: MESSAGES, stream: true, stream_options: { include_usage: true } });
  return {
    name: STREAM_CONTENDERS.raw,
    async stream(firstToken) {
      const { statusCode, body } = await pool.request({ method: 'POST', path: url.pathname, headers, body: payload });
      if (statusCode !== 200) throw new Error(`${STREAM_CONTENDERS.raw}: HTTP ${statusCode}`);
      body.setEncoding('utf8');
      let buffer = '';
      let content = '';
      for await (const chunk of body as AsyncIterable<string>) {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (!event.startsWith('data: ') || event === 'data: [DONE]') continue;
          const delta = (JSON.parse(event.slice(6)) as { choices: { delta?: { content?: string } }[] }).choices[0]?.delta?.content;
          if (delta) {
            if (content === '') firstToken();
            content += delta;
          }
        }
      }
      check(STREAM_CONTENDERS.raw, content);
    },
    close: () => pool.close(),
  };
}

async function governedStreamer(baseUrl: string, connections: number): Promise<Streamer> {
  const dispatcher = createAgent({ connections });
  const client = await GatewayClient.fromSettings(benchSettings({ scope: uniqueScope(), baseUrl, backend: 'memory' }), { dispatcher });
  return {
    name: STREAM_CONTENDERS.governed,
    async stream(firstToken) {
      let content = '';
      for await (const delta of client.chatStream(MESSAGES)) {
        if (!delta.content) continue;
        if (content === '') firstToken();
        content += delta.content;
      }
      check(STREAM_CONTENDERS.governed, content);
    },
    async close() {
      await client.close();
      await dispatcher.close();
    },
  };
}

export async function runStreamBench(options: StreamBenchOptions): Promise<StreamBenchResult> {
  const levels: StreamLevel[] = [];
  for (const shape of options.shapes) {
    for (const streams of options.levels) levels.push(await runLevel(options, shape, streams));
  }
  return { tokensPerStream: STREAM_TOKENS, rounds: options.rounds, levels };
}

async function runLevel(options: StreamBenchOptions, shape: StreamShape, streams: number): Promise<StreamLevel> {
  const baseUrl = options.upstream.baseUrl(shape === 'packet' ? ZERO_ROUTES.packet : ZERO_ROUTES.burst);
  // One connection per stream, so every stream is live at once.
  const streamers = [rawStreamer(baseUrl, streams), await governedStreamer(baseUrl, streams)];
  try {
    const ttft = new Map<string, number[]>(streamers.map((s) => [s.name, []]));
    const contenders: Contender[] = streamers.map((s) => ({
      name: s.name,
      round: ({ warmUp }) =>
        runConcurrent(
          streams,
          streams,
          async () => {
            const started = performance.now();
            await s.stream(() => {
              if (!warmUp) ttft.get(s.name)!.push(performance.now() - started);
            });
          },
          undefined,
          streams === 1 ? options.minRoundMs : 0,
        ),
    }));
    const results = await interleave(contenders, { rounds: options.rounds });
    const raw = results[0]!;
    const rows = results.map((r): StreamRow => {
      const own = ttft.get(r.name)!;
      return {
        name: r.name,
        streamsPerSecond: r.median,
        tokensPerSecond: r.median * STREAM_TOKENS,
        ratioVsRaw: ratio(r.median, raw.median),
        ttftP50Ms: percentile(own, 50),
        ttftP99Ms: percentile(own, 99),
        cpuUsPerStream: r.medianCpuUs,
        rates: r.rates,
        cpuUs: r.cpuUs,
      };
    });
    return { shape, streams, rows };
  } finally {
    for (const s of streamers) await s.close();
  }
}
