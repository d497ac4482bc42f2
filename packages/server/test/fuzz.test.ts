/**
 * Property-based requests at every route (fast-check, seeded, bounded in count and time): paths in
 * every spelling, hostile headers, bodies from valid to garbage. Whatever arrives, the server never
 * crashes, never answers 500 for bad input, answers every failure in OpenAI's error shape, never
 * serves a protected route without the key, and keeps /healthz answering meanwhile. The admin API of
 * stored keys is fuzzed the same way: served only with the admin key, never showing a key but at its creation.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, type RawAnswer } from './raw-http.js';
import { startHarness, type Harness } from './helpers.js';

const KEY = 'sk-fuzz-key-0001';
const SEED = Number(process.env['PGW_FUZZ_SEED'] ?? 20261202);
const RUNS = 1500;
const TIME_LIMIT_MS = 60_000;

const ROUTES = ['/v1/chat/completions', '/v1/responses', '/v1/messages', '/v1/messages/count_tokens', '/v1/embeddings', '/v1/models', '/healthz', '/readyz', '/metrics', '/nope', '/', '/v1', '/v1/'];
const PROTECTED = new Set(['/v1/chat/completions', '/v1/responses', '/v1/messages', '/v1/messages/count_tokens', '/v1/embeddings', '/v1/models']);

/** A route spelled as an attacker might: percent-encoded letters, doubled slashes, dot segments, absolute form, a query, case. */
const spelledPath = fc.tuple(fc.constantFrom(...ROUTES), fc.array(fc.constantFrom('encode', 'double-slash', 'dot', 'dotdot', 'absolute', 'query', 'upper', 'trailing', 'hash'), { maxLength: 3 }), fc.nat()).map(([route, mutations, n]) => {
  let path = route;
  for (const mutation of mutations) {
    if (mutation === 'encode') {
      const at = 1 + (n % Math.max(1, path.length - 1));
      const char = path[at] ?? '';
      if (/[a-z0-9]/i.test(char)) path = `${path.slice(0, at)}%${char.charCodeAt(0).toString(16)}${path.slice(at + 1)}`;
    } else if (mutation === 'double-slash') path = `/${path}`;
    else if (mutation === 'dot') path = path.replace('/v1/', '/v1/./');
    else if (mutation === 'dotdot') path = `/x/..${path}`;
    else if (mutation === 'absolute') path = `http://fuzz.example${path.startsWith('/') ? path : `/${path}`}`;
    else if (mutation === 'query') path = `${path}?q=${n}`;
    else if (mutation === 'upper') path = path.toUpperCase();
    else if (mutation === 'trailing') path = `${path}/`;
    else path = `${path}#frag`;
  }
  return path;
});
const anyPath = fc.oneof(spelledPath, fc.stringMatching(/^\/[\x21-\x7e]{0,60}$/));

const validChat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };
const chatLike = fc.record(
  {
    model: fc.oneof(fc.constant('gpt-4o-mini'), fc.jsonValue()),
    messages: fc.oneof(fc.constant(validChat.messages), fc.array(fc.record({ role: fc.oneof(fc.constantFrom('user', 'system', 'assistant', 'tool'), fc.string()), content: fc.oneof(fc.string(), fc.jsonValue()) }), { maxLength: 3 }), fc.jsonValue()),
    stream: fc.oneof(fc.boolean(), fc.jsonValue()),
    tools: fc.jsonValue(),
    tool_choice: fc.jsonValue(),
    response_format: fc.oneof(
      fc.jsonValue(),
      fc.record({ type: fc.constant('json_schema'), json_schema: fc.record({ name: fc.string(), schema: fc.oneof(fc.jsonValue(), fc.record({ type: fc.constant('string'), pattern: fc.string({ maxLength: 20 }) })) }) }),
    ),
    reasoning_effort: fc.jsonValue(),
    user: fc.jsonValue(),
    n: fc.jsonValue(),
    input: fc.oneof(fc.jsonValue(), fc.array(fc.record({ type: fc.constantFrom('message', 'function_call', 'function_call_output', 'reasoning', 'x'), role: fc.string(), content: fc.jsonValue(), call_id: fc.jsonValue() }, { requiredKeys: [] }), { maxLength: 3 })),
    instructions: fc.jsonValue(),
    text: fc.oneof(fc.jsonValue(), fc.record({ format: fc.record({ type: fc.constant('json_schema'), name: fc.string(), schema: fc.jsonValue() }) })),
    previous_response_id: fc.jsonValue(),
    encoding_format: fc.jsonValue(),
    temperature: fc.jsonValue(),
  },
  { requiredKeys: [] },
);
const body = fc.oneof(
  chatLike.map((value) => JSON.stringify(value)),
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.constant(JSON.stringify(validChat)),
  fc.string({ maxLength: 200 }),
  fc.constantFrom('', '{', '[[[[[[[[', '{"__proto__": {"x": 1}}', '{"constructor": {"prototype": {"x": 1}}}', 'null', '"text"'),
);

const headerValue = fc.stringMatching(/^[\x20-\x7e]{0,80}$/).map((value) => value.trim());
const priorityHeader = fc.oneof(fc.constantFrom('interactive', 'batch', 'Batch', 'batch, interactive', 'batch\tx'), headerValue);
const anyRequest = fc.record({
  method: fc.constantFrom('GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'HEAD'),
  path: anyPath,
  authorization: fc.oneof(fc.constant(`Bearer ${KEY}`), fc.constant(undefined), fc.constant(`bearer ${KEY}`), fc.constant(`Bearer ${KEY}x`), headerValue),
  apiKey: fc.option(fc.oneof(fc.constant(KEY), headerValue), { nil: undefined }),
  contentType: fc.oneof(fc.constant('application/json'), fc.constant(undefined), fc.constantFrom('text/plain', 'application/json; charset=utf-8', 'multipart/form-data', 'application/x-www-form-urlencoded'), headerValue),
  requestId: fc.option(headerValue, { nil: undefined }),
  priority: fc.option(priorityHeader, { nil: undefined }),
  extra: fc.array(fc.tuple(fc.stringMatching(/^x-[a-z0-9-]{1,20}$/), headerValue), { maxLength: 3 }),
  body,
});
/** Close to a real call (the key, JSON, a governed route in some spelling): the fuzz reaches the field checks and the governed call. */
const nearlyValid = fc.record({
  method: fc.constant('POST'),
  path: fc.constantFrom('/v1/chat/completions', '/%761/chat/completions', 'http://x/v1/chat/completions', '/v1/embeddings', '/v1/chat/completions?x=1', '/v1/responses', '/v1/%72esponses', '/v1/messages?beta=true', '/v1/messages/count_tokens'),
  authorization: fc.constant(`Bearer ${KEY}`),
  apiKey: fc.constant(undefined),
  contentType: fc.constant('application/json'),
  requestId: fc.option(headerValue, { nil: undefined }),
  priority: fc.option(priorityHeader, { nil: undefined }),
  extra: fc.constant<[string, string][]>([]),
  body: fc.oneof(
    fc.constant(JSON.stringify(validChat)),
    fc.constant(JSON.stringify({ model: 'text-embedding-3-small', input: 'x' })),
    chatLike.map((value) => JSON.stringify({ ...validChat, ...value })),
    chatLike.map((value) => JSON.stringify({ model: 'gpt-4o-mini', input: 'hi', ...value, messages: undefined })),
    chatLike.map((value) => JSON.stringify({ model: 'claude-x', max_tokens: 16, ...value, messages: [{ role: 'user', content: value.messages ?? 'hi' }] })),
  ),
});
const request = fc.oneof(anyRequest, nearlyValid);
type FuzzRequest = typeof request extends fc.Arbitrary<infer T> ? T : never;

function bytesOf(input: FuzzRequest): string {
  const hasBody = input.method !== 'GET' && input.method !== 'HEAD';
  const headers: [string, string][] = [['host', '127.0.0.1'], ['connection', 'close']];
  if (input.authorization !== undefined) headers.push(['authorization', input.authorization]);
  if (input.apiKey !== undefined) headers.push(['x-api-key', input.apiKey]);
  if (input.contentType !== undefined && hasBody) headers.push(['content-type', input.contentType]);
  if (input.requestId !== undefined) headers.push(['x-request-id', input.requestId]);
  if (input.priority !== undefined) headers.push(['x-pgw-priority', input.priority]);
  headers.push(...input.extra);
  if (hasBody) headers.push(['content-length', String(Buffer.byteLength(input.body))]);
  return `${input.method} ${input.path} HTTP/1.1\r\n${headers.map(([name, value]) => `${name}: ${value}`).join('\r\n')}\r\n\r\n${hasBody ? input.body : ''}`;
}

function checkAnswer(input: FuzzRequest, answer: RawAnswer): void {
  expect(answer.status, `a status for ${input.method} ${input.path}`).toBeGreaterThanOrEqual(200);
  expect(answer.status, `no 500 for ${input.method} ${input.path}: ${answer.body}`).not.toBe(500);
  expect(answer.headers['x-request-id'] ?? 'made before routing', 'a request id').toMatch(/^[\x21-\x7e]{1,128}$|^made before routing$/);
  // A served call runs in the class it asked for or a lower one, and only a class's own name is taken.
  if (answer.status < 300 && answer.headers['x-pgw-priority'] !== undefined) {
    expect(['interactive', 'batch']).toContain(answer.headers['x-pgw-priority']);
    if (input.priority !== undefined) expect(['interactive', 'batch']).toContain(input.priority);
    if (input.priority === 'batch') expect(answer.headers['x-pgw-priority']).toBe('batch');
  }
  if (answer.status >= 400 && input.method !== 'HEAD') {
    const parsed = JSON.parse(answer.body) as { type?: unknown; error?: { message?: unknown; type?: unknown; param?: unknown; code?: unknown } };
    expect(typeof parsed.error?.message).toBe('string');
    expect(typeof parsed.error?.type).toBe('string');
    // Anthropic's routes answer in its shape, every other one in OpenAI's.
    if (parsed.type === 'error') return;
    expect(parsed.error?.param === null || typeof parsed.error?.param === 'string').toBe(true);
    expect(parsed.error?.code === null || typeof parsed.error?.code === 'string').toBe(true);
  }
}

describe('fuzzing the door', () => {
  let h: Harness;
  const served: { route: string | null; status: number; tenant: string | null }[] = [];
  beforeAll(async () => {
    h = await startHarness(undefined, { PGW_SERVER__KEYS: JSON.stringify({ [KEY]: 'fuzz' }), LLM__MAX_ATTEMPTS: '1' }, [], {
      log: (line) => served.push(JSON.parse(line) as (typeof served)[number]),
    });
  });
  afterAll(() => h.close());

  it(`answers ${RUNS} generated requests (seed ${SEED}) in OpenAI's shape, never a 500, /healthz answering meanwhile`, async () => {
    let probing = true;
    const slowest: number[] = [];
    const probe = (async () => {
      while (probing) {
        const started = performance.now();
        const health = await rawRequest(h.url, 'GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n', { timeoutMs: 5_000 });
        expect(health.status).toBe(200);
        slowest.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    try {
      await fc.assert(
        fc.asyncProperty(request, async (input) => checkAnswer(input, await rawRequest(h.url, bytesOf(input), { untilClose: true, timeoutMs: 10_000 }))),
        { seed: SEED, numRuns: RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: false },
      );
    } finally {
      probing = false;
      await probe;
    }
    expect(slowest.length).toBeGreaterThan(0);
    // Whatever the spelling of its path, a protected route the router matched was served only with the key.
    const unkeyed = served.filter((entry) => PROTECTED.has(entry.route ?? '') && entry.status < 300 && entry.tenant !== 'fuzz');
    expect(unkeyed).toEqual([]);
    expect(served.filter((entry) => PROTECTED.has(entry.route ?? '') && entry.status < 300).length).toBeGreaterThan(0);
    console.log(`[figure] fuzz: ${RUNS} requests, /healthz probed ${slowest.length} times, slowest ${Math.round(Math.max(...slowest))} ms`);
  }, 120_000);
});

describe('fuzzing the admin API of stored keys', () => {
  const ADMIN = 'admin-fuzz-key-0001';
  const ADMIN_RUNS = 300;
  let h: Harness;
  let dir: string;
  const served: { route: string | null; status: number }[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pgw-fuzz-keys-'));
    h = await startHarness(undefined, { PGW_SERVER__KEYS: JSON.stringify({ [KEY]: 'fuzz' }), PGW_SERVER__ADMIN_KEYS: JSON.stringify([ADMIN]), PGW_KEYS__DIR: dir }, [], {
      log: (line) => served.push(JSON.parse(line) as (typeof served)[number]),
    });
  });
  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const keyRecord = fc.record(
    {
      tenant: fc.oneof(fc.constant('team-a'), fc.jsonValue(), fc.string({ maxLength: 300 })),
      name: fc.oneof(fc.string(), fc.jsonValue()),
      models: fc.oneof(fc.constant(['gpt-4o-mini']), fc.constant(null), fc.jsonValue(), fc.array(fc.string(), { maxLength: 3 })),
      mcp: fc.oneof(fc.constant(null), fc.jsonValue()),
      priority: fc.oneof(fc.constantFrom('interactive', 'batch'), fc.jsonValue()),
      limits: fc.oneof(fc.record({ rpm: fc.oneof(fc.integer(), fc.double(), fc.jsonValue()), tpm: fc.integer(), maxConcurrency: fc.jsonValue() }, { requiredKeys: [] }), fc.jsonValue()),
      budget: fc.oneof(fc.record({ usd: fc.oneof(fc.double(), fc.jsonValue()), window: fc.oneof(fc.constantFrom('hour', 'day', 'month', 'total', 'week'), fc.jsonValue()) }), fc.constant(null), fc.jsonValue()),
      expiresAt: fc.oneof(fc.constantFrom('2099-01-01T00:00:00Z', '2000-01-01T00:00:00Z', 'soon', null), fc.date({ noInvalidDate: true }).map((date) => date.toISOString()), fc.jsonValue()),
      graceS: fc.oneof(fc.integer(), fc.jsonValue()),
    },
    { requiredKeys: [] },
  );
  const adminPath = fc.oneof(
    fc.constantFrom('/admin/keys', '/admin/keys/audit', '/admin/keys?tenant=team-a', '/admin/keys?state=revoked', '/admin/keys?state=x', '/admin/keys/audit?keyId=x', '/admin/%6beys', '/admin/keys/'),
    fc.tuple(fc.oneof(fc.stringMatching(/^key_[0-9a-f]{16}$/), fc.stringMatching(/^[\x21-\x7e]{0,40}$/).map(encodeURIComponent)), fc.constantFrom('', '/rotate')).map(([id, tail]) => `/admin/keys/${id}${tail}`),
  );
  const adminRequest = fc.record({
    method: fc.constantFrom('GET', 'POST', 'POST', 'PATCH', 'DELETE', 'PUT'),
    path: adminPath,
    authorization: fc.oneof(fc.constant(`Bearer ${ADMIN}`), fc.constant(`Bearer ${ADMIN}`), fc.constant(`Bearer ${KEY}`), fc.constant(undefined), headerValue),
    apiKey: fc.constant(undefined),
    contentType: fc.oneof(fc.constant('application/json'), fc.constant(undefined), headerValue),
    requestId: fc.constant(undefined),
    priority: fc.constant(undefined),
    extra: fc.constant<[string, string][]>([]),
    body: fc.oneof(keyRecord.map((value) => JSON.stringify(value)), fc.jsonValue().map((value) => JSON.stringify(value)), fc.string({ maxLength: 200 }), fc.constantFrom('', '{', '{"__proto__": {"tenant": "x"}}', 'null')),
  });

  it(`answers ${ADMIN_RUNS} generated admin requests (seed ${SEED}) in the door's error shape, never a 500, served only with the admin key`, async () => {
    const answers: { input: FuzzRequest; status: number; body: string }[] = [];
    await fc.assert(
      fc.asyncProperty(adminRequest, async (input) => {
        const answer = await rawRequest(h.url, bytesOf(input), { untilClose: true, timeoutMs: 10_000 });
        checkAnswer(input, answer);
        answers.push({ input, status: answer.status, body: answer.body });
      }),
      { seed: SEED, numRuns: ADMIN_RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: false },
    );
    const servedWithout = answers.filter((answer) => answer.status < 300 && answer.input.authorization !== `Bearer ${ADMIN}`);
    expect(servedWithout).toEqual([]);
    // A key is shown only in the answer that made it (a creation, a rotation): no other answer holds one.
    const madeOne = (answer: (typeof answers)[number]) => answer.status === 201 || (answer.status === 200 && answer.input.path.endsWith('/rotate'));
    const leaked = answers.filter((answer) => !madeOne(answer) && /pgw_sk_[A-Za-z0-9_-]{43}/.test(answer.body));
    expect(leaked).toEqual([]);
    expect(answers.some((answer) => answer.status === 400)).toBe(true);
  }, 120_000);
});
