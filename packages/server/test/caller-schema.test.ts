/**
 * A caller's JSON Schema runs in linear time: its patterns on RE2, its size and depth bounded, so
 * neither the schema nor the model's answer can freeze the server (docs/reliability.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES, callerSchema } from '@pgw/wire';
import { post, rawRequest } from './raw-http.js';
import { startHarness, type Harness } from './helpers.js';

const evil = { type: 'object', properties: { a: { type: 'string', pattern: '^(a+)+$' } }, required: ['a'], additionalProperties: false };
const asking = (schema: object) =>
  JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], response_format: { type: 'json_schema', json_schema: { name: 'answer', schema } } });

describe('a caller’s JSON Schema at the door', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sources: { main: { content: JSON.stringify({ a: `${'a'.repeat(30)}!` }) } } });
  });
  afterAll(() => h.close());

  it('validates a catastrophic pattern against a hostile answer in linear time, /healthz answering meanwhile', async () => {
    const started = performance.now();
    const asked = rawRequest(h.url, post('/v1/chat/completions', asking(evil)), { timeoutMs: 15_000 });
    const health = await rawRequest(h.url, 'GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    expect(health.status).toBe(200);
    const answer = await asked;
    // The answer never matches: the re-asks end in an invalid result, not in a frozen process.
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'result_invalid' } });
    // With V8's backtracking engine this one request took 42 s; allow 10× a loaded machine's margin below that.
    expect(performance.now() - started).toBeLessThan(10_000);
  }, 20_000);

  it('accepts an answer that matches, and sends the caller’s schema upstream as written', async () => {
    h.mock.setSource('main', { content: JSON.stringify({ a: 'aaa' }) });
    const answer = await rawRequest(h.url, post('/v1/chat/completions', asking(evil)));
    expect(answer.status).toBe(200);
    expect(JSON.parse((JSON.parse(answer.body) as { choices: { message: { content: string } }[] }).choices[0]!.message.content)).toEqual({ a: 'aaa' });
    // The scope's structured mode here is json_repair: the schema travels in the prompt, as the caller wrote it.
    expect(JSON.stringify(h.mock.requests('main').at(-1)!.body)).toContain(JSON.stringify(JSON.stringify(evil.properties)).slice(1, -1));
  });

  it.each([
    ['a lookahead', { type: 'string', pattern: '(?=a)a' }, 'response_format.json_schema.schema.pattern'],
    ['a backreference', { type: 'object', properties: { x: { type: 'string', pattern: '(a)\\1' } } }, 'response_format.json_schema.schema.properties.x.pattern'],
    ['a patternProperties key RE2 cannot run', { type: 'object', patternProperties: { '(?<=x)y': { type: 'string' } } }, 'response_format.json_schema.schema.patternProperties.(?<=x)y'],
    ['a pattern too long', { type: 'string', pattern: 'a'.repeat(1001) }, 'response_format.json_schema.schema.pattern'],
  ])('refuses %s with a 400 naming the field', async (_name, schema, param) => {
    const answer = await rawRequest(h.url, post('/v1/chat/completions', asking(schema)));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { param, type: 'invalid_request_error' } });
  });

  it('refuses a schema too deep or too large with a 400 naming the field', async () => {
    let deep: object = { type: 'string' };
    for (let level = 0; level < MAX_SCHEMA_DEPTH; level++) deep = { type: 'array', items: deep };
    const tooDeep = await rawRequest(h.url, post('/v1/chat/completions', asking(deep)));
    expect(tooDeep.status).toBe(400);
    expect(JSON.parse(tooDeep.body)).toMatchObject({ error: { param: expect.stringMatching(/^response_format\.json_schema\.schema\.items/) } });
    const wide = { type: 'object', properties: Object.fromEntries(Array.from({ length: MAX_SCHEMA_NODES }, (_, i) => [`p${i}`, { type: 'string' }])) };
    const tooLarge = await rawRequest(h.url, post('/v1/chat/completions', asking(wide)));
    expect(tooLarge.status).toBe(400);
    expect(JSON.parse(tooLarge.body)).toMatchObject({ error: { param: 'response_format.json_schema.schema' } });
  });
});

describe('callerSchema', () => {
  it('checks what the schema says, and keeps no caller schema registered', () => {
    const schema = { $id: 'https://example.com/s', type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'] };
    const zod = callerSchema(schema, 'schema');
    expect(zod.safeParse({ n: 2 }).success).toBe(true);
    expect(zod.safeParse({ n: 0 }).success).toBe(false);
    // The same $id compiled again (another request) is no conflict.
    expect(callerSchema({ ...schema, required: [] }, 'schema').safeParse({}).success).toBe(true);
  });
});
