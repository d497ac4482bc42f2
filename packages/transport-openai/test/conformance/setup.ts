/**
 * Conformance to the OpenAI OpenAPI document, for every test of this package: the request bodies the
 * provider builds and the answers it parses without error are recorded where they are made, and
 * checked after each test against the spec's schemas. A change that drifts from the spec fails the
 * test that exercised it.
 */
import { afterEach, expect, vi } from 'vitest';
import { specIssues } from '@pgw/testkit/internal';
import { record, takeRecorded, type SpecSchema } from './recorder.js';

vi.mock('../../src/request-body.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/request-body.js')>();
  return {
    ...original,
    chatBody: (...args: Parameters<typeof original.chatBody>) => recorded('CreateChatCompletionRequest', original.chatBody(...args)),
    embedBody: (...args: Parameters<typeof original.embedBody>) => recorded('CreateEmbeddingRequest', original.embedBody(...args)),
  };
});

vi.mock('../../src/chat-answer.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/chat-answer.js')>();
  return { ...original, parseChatCompletion: parsedAnswers('CreateChatCompletionResponse', original.parseChatCompletion) };
});

vi.mock('../../src/embed-answer.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/embed-answer.js')>();
  return { ...original, parseEmbeddings: parsedAnswers('CreateEmbeddingResponse', original.parseEmbeddings) };
});

vi.mock('../../src/chat-stream.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/chat-stream.js')>();
  class RecordingAssembler extends original.ChatStreamAssembler {
    override accept(event: Parameters<InstanceType<typeof original.ChatStreamAssembler>['accept']>[0]) {
      const wasDone = this.done;
      const news = super.accept(event);
      // A chunk, not the [DONE] marker nor what follows it.
      if (!wasDone && !this.done) record('CreateChatCompletionStreamResponse', JSON.parse(event.data));
      return news;
    }
  }
  return { ...original, ChatStreamAssembler: RecordingAssembler };
});

/** `parse`, recording each body it parsed without error. */
function parsedAnswers<Rest extends unknown[], T>(schema: SpecSchema, parse: (body: string, ...rest: Rest) => T): (body: string, ...rest: Rest) => T {
  return (body, ...rest) => {
    const answer = parse(body, ...rest);
    record(schema, JSON.parse(body));
    return answer;
  };
}

function recorded<T>(schema: SpecSchema, body: T): T {
  // A copy: the caller may go on changing its body.
  record(schema, structuredClone(body));
  return body;
}

afterEach(() => {
  const drifts = takeRecorded().flatMap(({ schema, value }) => {
    const issues = specIssues(schema, value);
    return issues.length === 0 ? [] : [`${schema}: ${issues.slice(0, 5).join('; ')}\n  ${JSON.stringify(value).slice(0, 400)}`];
  });
  expect(drifts, 'request bodies and parsed answers must conform to the OpenAI OpenAPI document').toEqual([]);
});
