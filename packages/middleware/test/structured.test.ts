import { ResultInvalidError, TransientError, type ChatRequest } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { extractJsonText, parseStructuredAnswer } from './helpers/internals.js';
import { chatResult, Script, ScriptedModel, source } from './helpers/fakes.js';
import { chatHarness } from './helpers/harness.js';

const Answer = z.object({ answer: z.number(), tags: z.array(z.string()) });

describe('JSON extraction', () => {
  it('prefers the first ```json fenced block', () => {
    const text = 'Sure! {"ignored": true}\n```json\n{"answer": 1}\n```\nand ```json\n{"answer": 2}\n```';
    expect(extractJsonText(text)).toBe('{"answer": 1}');
  });

  it('else takes the first balanced span, not fooled by brackets inside strings', () => {
    expect(extractJsonText('The result is {"a": "x}y{", "b": [1, {"c": "]"}]} — hope that helps {"z":1}')).toBe(
      '{"a": "x}y{", "b": [1, {"c": "]"}]}',
    );
    expect(extractJsonText('list: [1, 2, "a\\"]"] done')).toBe('[1, 2, "a\\"]"]');
  });

  it('hands an unclosed span or a bare scalar to the repairer', () => {
    expect(extractJsonText('here: {"a": [1, 2')).toBe('{"a": [1, 2');
    expect(extractJsonText('  42 ')).toBe('42');
  });

  it('repairs trailing commas and validates against the schema', () => {
    expect(parseStructuredAnswer('```json\n{"answer": 3, "tags": ["x",],}\n```', Answer)).toEqual({
      ok: true,
      value: { answer: 3, tags: ['x'] },
    });
    const wrong = parseStructuredAnswer('{"answer": "three"}', Answer);
    expect(wrong.ok).toBe(false);
    expect(!wrong.ok && wrong.issues.some((issue) => issue.startsWith('answer:'))).toBe(true);
    expect(!wrong.ok && wrong.issues.some((issue) => issue.startsWith('tags:'))).toBe(true);
  });
});

describe('structured middleware', () => {
  const requests = (h: ReturnType<typeof chatHarness>) => h.script.calls.map((call) => call.request as ChatRequest);

  it('json_repair asks for JSON in the prompt and parses a fenced, prose-wrapped answer', async () => {
    const h = chatHarness([chatResult('Here you go:\n```json\n{"answer": 7, "tags": []}\n```')]);
    const response = await h.run({ structured: Answer });
    expect(response.parsed).toEqual({ answer: 7, tags: [] });
    const sent = requests(h)[0]!;
    expect(sent.responseFormat).toBeUndefined();
    expect(String(sent.messages.at(-1)!.content)).toContain('JSON Schema');
    expect('structured' in sent).toBe(false);
  });

  it('json_schema sends a native response_format built from the schema', async () => {
    const h = chatHarness([chatResult('{"answer": 1, "tags": ["a"]}')], {
      settings: { structured: { maxRetries: 1, strategy: 'json_schema', escalation: 'json_repair' } },
    });
    await h.run({ structured: Answer });
    const format = requests(h)[0]!.responseFormat!;
    expect(format.type).toBe('json_schema');
    expect(format.schema).toMatchObject({ type: 'object', required: ['answer', 'tags'] });
    expect(requests(h)[0]!.messages).toHaveLength(1); // no prompt instruction needed
  });

  it('json_schema sends a strict-compatible schema: optional fields required but nullable, a default only an annotation', async () => {
    const Person = z.object({
      name: z.string(),
      age: z.number().optional(),
      nick: z.string().nullable().optional(),
      pets: z.array(z.object({ kind: z.string().default('cat'), chip: z.string().optional() })),
      code: z.string().meta({ examples: [{ default: 'X1' }] }),
    });
    const h = chatHarness([chatResult('{"name": "Ada", "age": null, "nick": null, "pets": [{"kind": "dog", "chip": null}], "code": "A7"}')], {
      settings: { structured: { maxRetries: 0, strategy: 'json_schema', escalation: 'json_schema' } },
    });
    const response = await h.run({ structured: Person });
    const schema = requests(h)[0]!.responseFormat!.schema;
    expect(schema).toMatchObject({
      type: 'object',
      required: ['name', 'age', 'nick', 'pets', 'code'],
      additionalProperties: false,
      properties: {
        age: { anyOf: [{ type: 'number' }, { type: 'null' }] },
        nick: { type: ['string', 'null'] },
        pets: { items: { required: ['kind', 'chip'], additionalProperties: false, properties: { kind: { type: 'string' } } } },
      },
    });
    expect(JSON.stringify(schema.properties)).not.toContain('"default":"cat"');
    expect(JSON.stringify(schema.properties)).toContain('"examples":[{"default":"X1"}]'); // data is not rewritten as a schema
    // null where the caller's schema says optional (not nullable) means absent; a nullable field keeps its null.
    expect(response.parsed).toEqual({ name: 'Ada', nick: null, pets: [{ kind: 'dog' }], code: 'A7' });
    expect(Object.keys(response.parsed as object)).not.toContain('age');
  });

  it('json_schema is decided per source: a model without native support gets the JSON request in the prompt', async () => {
    const plain = new ScriptedModel(new Script([]), 'model-b', { jsonSchema: false, streaming: true });
    const bad = new TransientError({ message: '503', statusCode: 503, sourceName: 'a' });
    const h = chatHarness([bad, chatResult('{"answer": 1, "tags": []}')], {
      sources: [source('a'), source('b', { model: plain })],
      settings: { structured: { maxRetries: 1, strategy: 'json_schema', escalation: 'json_schema' } },
    });
    await h.run({ structured: Answer });
    const [onA, onB] = requests(h);
    expect(h.script.sources()).toEqual(['a', 'b']);
    expect(onA!.responseFormat?.type).toBe('json_schema'); // a: native, no instruction
    expect(onA!.messages).toHaveLength(1);
    expect(onB!.responseFormat).toBeUndefined(); // b: the same round, asked in the prompt
    expect(String(onB!.messages.at(-1)!.content)).toContain('JSON Schema');
  });

  it('re-asks with the answer and its issues, escalating after the first failure; every round counts as an attempt', async () => {
    const h = chatHarness([chatResult('I think the answer is seven'), chatResult('{"answer": 7, "tags": ["x"]}')]);
    const response = await h.run({ structured: Answer });
    expect(response.parsed).toEqual({ answer: 7, tags: ['x'] });
    expect(response.callStats.attempts).toBe(2);
    const [first, second] = requests(h);
    expect(first!.responseFormat).toBeUndefined();
    expect(second!.responseFormat?.type).toBe('json_schema'); // escalation strategy
    expect(second!.messages.slice(-2)).toEqual([
      { role: 'assistant', content: 'I think the answer is seven' },
      { role: 'user', content: expect.stringContaining('(root): Invalid input: expected object') },
    ]);
  });

  it('exhausted → ResultInvalidError with the last issues, after 1 + maxRetries rounds', async () => {
    const h = chatHarness([], {}, chatResult('{"answer": "n/a", "tags": []}'));
    const error = (await h.run({ structured: Answer }).catch((e: unknown) => e)) as ResultInvalidError;
    expect(error).toBeInstanceOf(ResultInvalidError);
    expect(error.issues).toEqual([expect.stringMatching(/^answer: /)]);
    expect(h.script.calls).toHaveLength(3);
    expect(h.recorder.kind('terminal_failure')).toHaveLength(1);
    expect(h.recorder.kind('attempt')).toHaveLength(3);
  });

  it('passes a request without a schema through untouched', async () => {
    const h = chatHarness([chatResult('plain')]);
    const response = await h.run();
    expect(response.parsed).toBeUndefined();
    expect(requests(h)[0]!.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });
});
