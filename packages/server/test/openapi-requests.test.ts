/**
 * Request bodies drawn from the vendored OpenAPI document (`CreateChatCompletionRequest`,
 * `CreateResponse`), each one the document accepts: whatever a client may send, the server never
 * answers 500, and what it answers is the protocol's shape — the completion or response object, its
 * stream's events, or an error naming the field it cannot honour.
 */
import fc from 'fast-check';
import { specArbitrary, specIssues } from '@pgw/testkit/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchangeDrifts } from './conformance/responses.js';
import { startHarness, type Harness } from './helpers.js';

const SEED = Number(process.env['PGW_FUZZ_SEED'] ?? 20261205);
const RUNS = 150;
const TIME_LIMIT_MS = 40_000;
const MODEL = fc.constant('gpt-4o-mini');

interface Exchange {
  status: number;
  contentType: string;
  body: string;
}

/** The drifts of a chat completion answer: the completion, each chunk of its stream, or the error. */
function chatDrifts({ status, contentType, body }: Exchange): string[] {
  const issues = (schema: string, text: string) => specIssues(schema, JSON.parse(text)).map((issue) => `${schema}: ${issue}`);
  if (status !== 200) return issues('ErrorResponse', body);
  if (!contentType.startsWith('text/event-stream')) return issues('CreateChatCompletionResponse', body);
  const events = body.split('\n\n').filter((block) => block.startsWith('data: ')).map((block) => block.slice('data: '.length));
  if (events.at(-1) !== '[DONE]') return [`the stream ends with ${events.at(-1) ?? 'nothing'}, not [DONE]`];
  return events.slice(0, -1).flatMap((data) => issues('CreateChatCompletionStreamResponse', data));
}

const TOOL_NAME = fc.stringMatching(/^[a-zA-Z0-9_-]{1,20}$/);
/**
 * Half the bodies are drawn with the fields this server refuses by design held to what it serves (one
 * choice, named tools, no background run), so the served path is walked as often as the refusals.
 */
const ROUTES: { path: string; schema: string; served: Record<string, fc.Arbitrary<unknown>>; drifts: (exchange: Exchange, request: string) => string[] }[] = [
  { path: '/v1/chat/completions', schema: 'CreateChatCompletionRequest', served: { n: fc.constant(1), name: TOOL_NAME }, drifts: chatDrifts },
  {
    path: '/v1/responses',
    schema: 'CreateResponse',
    served: { tool_choice: fc.constantFrom('auto', 'none'), background: fc.constant(null), conversation: fc.constant(null), input: fc.string({ minLength: 1, maxLength: 20 }) },
    drifts: (exchange: Exchange, request: string) => exchangeDrifts(request, exchange.status, exchange.contentType, exchange.body),
  },
];

describe('request bodies drawn from the OpenAPI document', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(undefined, { LLM__MAX_ATTEMPTS: '1' });
  });
  afterAll(() => h.close());

  for (const { path, schema, served, drifts } of ROUTES) {
    it(`${path}: ${RUNS} ${schema} bodies (seed ${SEED}), never a 500, always the protocol's shape`, async () => {
      const statuses = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(fc.oneof(specArbitrary(schema, { overrides: { model: MODEL } }), specArbitrary(schema, { overrides: { model: MODEL, ...served } })), async (body) => {
          const request = JSON.stringify(body);
          const response = await fetch(`${h.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: request });
          const exchange = { status: response.status, contentType: response.headers.get('content-type') ?? '', body: await response.text() };
          statuses.set(exchange.status, (statuses.get(exchange.status) ?? 0) + 1);
          expect(exchange.status, exchange.body).not.toBe(500);
          expect(drifts(exchange, request), `${request}\n→ ${exchange.status} ${exchange.body.slice(0, 500)}`).toEqual([]);
        }),
        { seed: SEED, numRuns: RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: false },
      );
      // Many bodies are served: a test that only ever met refusals would prove little (the rest name what this server cannot honour: a hosted tool, a background run, …).
      console.log(`[figure] ${path}: statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
      expect(statuses.get(200) ?? 0).toBeGreaterThan(RUNS / 10);
    }, 90_000);
  }
});
