/**
 * The ChatModel contract: what the governed path relies on from any chat model — the providers'
 * and a user's own (docs/writing-a-provider.md). The model must speak the OpenAI-compatible wire
 * format to the suite's upstream; each case runs once asking for SSE and once for one JSON body.
 */
import { RequestRejectedError, SourceDeadError, TransientError, type ChatModel, type ChatRequest, type ChatResult } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { CONTRACT_CONTENT, CONTRACT_USAGE } from './loopback-upstream.js';
import {
  contractEnvironment,
  expectCallerAbort,
  recordingAttempt,
  rejection,
  transportCases,
  type MakeModel,
  type RecordingAttempt,
} from './support.js';

const REQUEST: ChatRequest = { messages: [{ role: 'user', content: 'say hello' }], sampling: {} };

/** `stream` when the model has it; else what the governed path does: `generate` and the whole answer as one delta. */
function streamed(model: ChatModel, attempt: RecordingAttempt): Promise<ChatResult> {
  if (model.stream) return model.stream(REQUEST, attempt);
  return model.generate(REQUEST, attempt).then((result) => {
    attempt.onDelta({ content: result.content });
    return result;
  });
}

const IN_BAND: Array<[string, abstract new (...args: never[]) => Error, string | undefined]> = [
  ['invalid_request_error', RequestRejectedError, undefined],
  ['authentication_error', SourceDeadError, undefined],
  ['permission_error', SourceDeadError, undefined],
  ['insufficient_quota', SourceDeadError, undefined],
  ['rate_limit_error', TransientError, 'rate_limited'],
  ['server_error', TransientError, undefined],
  ['overloaded_error', TransientError, undefined],
];

export function chatModelContract(name: string, makeModel: MakeModel<ChatModel>): void {
  for (const stream of [true, false]) {
    describe(`ChatModel contract: ${name} (stream: ${stream})`, () => {
      const env = contractEnvironment(makeModel, (upstream) => ({ baseUrl: upstream.baseUrl, stream }));

      transportCases(env, (model, attempt) => model.generate(REQUEST, attempt));

      it('is a model of the port', async () => {
        const model = await env.make();
        expect(model.specificationVersion).toBe('pgw-model-v1');
        expect(typeof model.provider).toBe('string');
        expect(typeof model.modelId).toBe('string');
        expect(typeof model.capabilities.jsonSchema).toBe('boolean');
        expect(Array.isArray(model.managedKeys)).toBe(true);
      });

      it('answers, and reports the measured usage through onUsage before it returns', async () => {
        const model = await env.make();
        const attempt = recordingAttempt();
        let usagesAtReturn = -1;
        const result = await model.generate(REQUEST, attempt).then((r) => {
          usagesAtReturn = attempt.usages.length;
          return r;
        });
        expect(result.content).toBe(CONTRACT_CONTENT);
        expect(result.usage).toMatchObject({ promptTokens: CONTRACT_USAGE.prompt_tokens, completionTokens: CONTRACT_USAGE.completion_tokens, usageSource: 'measured' });
        expect(usagesAtReturn).toBeGreaterThan(0);
        expect(attempt.usages.at(-1)).toEqual(result.usage);
        expect(attempt.deltas).toEqual([]);
      });

      it('stream() forwards deltas that add up to the answer, and none once it has settled', async () => {
        const model = await env.make();
        env.upstream.next({ kind: 'drip', tokens: 4, gapMs: 10 });
        const attempt = recordingAttempt();
        const result = await streamed(model, attempt);
        const atSettle = attempt.deltas.length;
        expect(attempt.deltas.map((d) => d.content ?? '').join('')).toBe(result.content);
        expect(result.content).toBe('t0 t1 t2 t3 ');
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(attempt.deltas.length).toBe(atSettle);
      });

      it('an abort mid-answer rejects with the caller’s abort, and no delta arrives after it', async () => {
        const model = await env.make();
        env.upstream.next({ kind: 'drip', tokens: 3, gapMs: 30, hang: true });
        const controller = new AbortController();
        const attempt = recordingAttempt(controller.signal);
        const reason = new Error('caller gave up mid-answer');
        let deltasAtAbort = -1;
        const abort = (): void => {
          deltasAtAbort = attempt.deltas.length;
          controller.abort(reason);
        };
        attempt.onDelta = (delta) => {
          attempt.deltas.push(delta);
          if (!controller.signal.aborted) abort();
        };
        const arrived = env.upstream.arrived();
        const pending = rejection(streamed(model, attempt));
        await arrived;
        // A model that reads one JSON body sees no delta before the end: the caller aborts while it waits.
        const fallback = setTimeout(() => controller.signal.aborted || abort(), 150);
        expectCallerAbort(await pending, reason);
        clearTimeout(fallback);
        expect(attempt.deltas.length).toBe(deltasAtAbort);
        await new Promise((resolve) => setTimeout(resolve, 120));
        expect(attempt.deltas.length).toBe(deltasAtAbort);
      });

      describe.each(stream ? (['data', 'event'] as const) : (['json'] as const))('an in-band error (%s)', (as) => {
        it.each(IN_BAND)('of type %s is classified like the HTTP error it stands for', async (type, category, kind) => {
          const model = await env.make();
          env.upstream.next({ kind: 'in_band', error: { message: 'in-band', type }, ...(as !== 'json' && { as }) });
          const error = await rejection(model.generate(REQUEST, recordingAttempt()));
          expect(error).toBeInstanceOf(category);
          if (kind !== undefined) expect(error).toMatchObject({ transientKind: kind });
        });

        it('with a numeric status is classified by it', async () => {
          const model = await env.make();
          env.upstream.next({ kind: 'in_band', error: { message: 'in-band', status: 400, type: 'server_error' }, ...(as !== 'json' && { as }) });
          expect(await rejection(model.generate(REQUEST, recordingAttempt()))).toBeInstanceOf(RequestRejectedError);
        });
      });
    });
  }
}
