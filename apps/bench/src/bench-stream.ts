/**
 * Benchmark 2: many concurrent SSE streams through our transport (watchdog on) vs raw undici with a
 * minimal split-on-blank-line parser. Both get one connection per stream, so every stream is live at once.
 */
import { randomUUID } from 'node:crypto';
import { createAgent } from '@pgw/http';
import { openaiCompatible } from '@pgw/transport-openai';
import { Pool } from 'undici';
import { API_KEY } from './gateway-settings.js';
import { interleave, ratio, runConcurrent, type Contender } from './harness.js';
import type { MockProcess } from './mock-process.js';
import { EXPECTED_STREAM_ANSWER, MESSAGES, MODEL, SOURCES, STREAM_TOKENS } from './mock-script.js';

export const STREAM_CONTENDERS = { raw: 'raw undici + minimal SSE split', transport: 'openaiCompatible model (watchdog on)' } as const;

/** Liveness limits of the transport's watchdog: generous, but armed for every token. */
const WATCHDOG = { firstTokenMs: 30_000, interTokenMs: 10_000 };

export interface StreamBenchOptions {
  mock: MockProcess;
  streams: number;
  rounds: number;
}

export interface StreamRow {
  name: string;
  streamsPerSecond: number;
  tokensPerSecond: number;
  ratioVsRaw: number;
  rates: number[];
}

export interface StreamBenchResult {
  streams: number;
  tokensPerStream: number;
  connections: number;
  watchdog: typeof WATCHDOG;
  rows: StreamRow[];
}

function checkStream(contender: string, content: string): void {
  if (content !== EXPECTED_STREAM_ANSWER) {
    throw new Error(`${contender}: stream assembled ${content.length} chars, expected ${EXPECTED_STREAM_ANSWER.length}`);
  }
}

/** Raw undici: read the body as text, split events on blank lines, parse each `data:` JSON. */
function rawStreamer(baseUrl: string, connections: number) {
  const url = new URL(`${baseUrl}/chat/completions`);
  const pool = new Pool(url.origin, { connections });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` };
  const payload = JSON.stringify({ model: MODEL, messages: MESSAGES, stream: true, stream_options: { include_usage: true } });
  return {
    async stream(): Promise<void> {
      const { statusCode, body } = await pool.request({ method: 'POST', path: url.pathname, headers, body: payload });
      if (statusCode !== 200) throw new Error(`${STREAM_CONTENDERS.raw}: HTTP ${statusCode}`);
      body.setEncoding('utf8');
      let buffer = '';
      let content = '';
      let done = false;
      for await (const chunk of body as AsyncIterable<string>) {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (!event.startsWith('data: ')) continue;
          const data = event.slice(6);
          if (data === '[DONE]') {
            done = true;
            continue;
          }
          const parsed = JSON.parse(data) as { choices: { delta?: { content?: string } }[] };
          content += parsed.choices[0]?.delta?.content ?? '';
        }
      }
      if (!done) throw new Error(`${STREAM_CONTENDERS.raw}: stream ended without [DONE]`);
      checkStream(STREAM_CONTENDERS.raw, content);
    },
    close: () => pool.close(),
  };
}

function transportStreamer(baseUrl: string, connections: number) {
  const dispatcher = createAgent({ connections });
  const model = openaiCompatible({ baseUrl, apiKey: API_KEY, model: MODEL, dispatcher, watchdog: WATCHDOG });
  return {
    async stream(): Promise<void> {
      const callId = randomUUID();
      // One signal per attempt, as the middleware gives each attempt its own.
      const signal = new AbortController().signal;
      const attempt = { signal, sourceName: SOURCES.stream, timeoutMs: 120_000, callId, logicalCallId: callId };
      const result = await model.generate({ messages: MESSAGES, sampling: {} }, attempt);
      checkStream(STREAM_CONTENDERS.transport, result.content);
    },
    close: () => dispatcher.close(),
  };
}

export async function runStreamBench(options: StreamBenchOptions): Promise<StreamBenchResult> {
  const baseUrl = options.mock.baseUrl(SOURCES.stream);
  const connections = options.streams;
  const streamers = [
    { name: STREAM_CONTENDERS.raw, ...rawStreamer(baseUrl, connections) },
    { name: STREAM_CONTENDERS.transport, ...transportStreamer(baseUrl, connections) },
  ];
  try {
    const contenders: Contender[] = streamers.map((s) => ({
      name: s.name,
      round: () => runConcurrent(options.streams, options.streams, () => s.stream()),
    }));
    const results = await interleave(contenders, { rounds: options.rounds, between: () => options.mock.reset() });
    const raw = results[0]!;
    return {
      streams: options.streams,
      tokensPerStream: STREAM_TOKENS,
      connections,
      watchdog: WATCHDOG,
      rows: results.map((r) => ({
        name: r.name,
        streamsPerSecond: r.median,
        tokensPerSecond: r.median * STREAM_TOKENS,
        ratioVsRaw: ratio(r.median, raw.median),
        rates: r.rates,
      })),
    };
  } finally {
    for (const s of streamers) await s.close();
  }
}
