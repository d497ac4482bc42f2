/**
 * What Codex sends with only its provider block, as recorded from Codex 0.171.0 (`recorded/`): a
 * hosted `web_search` tool and a `namespace` tool among its function tools. The hosted tool is
 * dropped and named (header and telemetry `meta`), or refused under `PGW_SERVER__HOSTED_TOOLS=refuse`;
 * the namespace's tools are offered upstream as `<namespace>__<name>` and their calls answered under
 * their own name and namespace, as the caller declared them.
 */
import { readFileSync } from 'node:fs';
import type { GatewaySubscriber } from '@pgw/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';

// Recorded from Codex CLI 0.171.0; the fixture is @pgw/wire's, whose table-driven test reads it too.
const codexBody = (JSON.parse(readFileSync(new URL('../../wire/test/fixtures/codex-cli.json', import.meta.url), 'utf8')) as { requests: { body: Record<string, unknown> & { tools: unknown[] } }[] }).requests[0]!.body;

const crm = {
  type: 'namespace',
  name: 'crm',
  description: 'the customer records',
  tools: [{ type: 'function', name: 'lookup', description: 'find a customer', parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } }],
};

interface Sent {
  tools?: { type: string; function?: { name: string } }[];
  messages: { role: string; tool_calls?: { function: { name: string } }[] }[];
}

describe('hosted and namespace tools', () => {
  let h: Harness;
  const metas: unknown[] = [];
  const meta: GatewaySubscriber = { onAttemptStart: (event) => void metas.push(event.call.meta) };
  beforeAll(async () => {
    h = await startHarness(undefined, {}, [meta]);
  });
  afterAll(() => h.close());
  beforeEach(() => {
    metas.length = 0;
    h.mock.setSource('main', {});
  });

  const post = (body: unknown) => fetch(`${h.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const sent = () => h.mock.requests('main').at(-1)!.body as Sent;

  it("serves Codex's default request: the hosted web_search dropped and named, the namespace's tools flattened", async () => {
    const response = await post(codexBody);
    const events = await response.text();
    expect(response.status, events).toBe(200);
    expect(response.headers.get('x-pgw-dropped-tools')).toBe('web_search');
    expect(events).toContain('event: response.completed');
    const names = sent().tools!.map((tool) => tool.function!.name);
    expect(names).toContain('exec_command');
    expect(names).toContain('multi_agent_v1__spawn_agent');
    expect(names).not.toContain('web_search');
    expect(sent().tools!.every((tool) => tool.type === 'function')).toBe(true);
    expect(metas.at(-1)).toMatchObject({ droppedTools: ['web_search'] });
  });

  it('drops nothing and adds no header where there is no hosted tool', async () => {
    const response = await post({ model: 'gpt-4o-mini', input: 'hi', tools: [crm] });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-pgw-dropped-tools')).toBeNull();
    expect(metas.at(-1)).not.toHaveProperty('droppedTools');
  });

  it('names each hosted tool type dropped once, on a whole answer too', async () => {
    const response = await post({ model: 'gpt-4o-mini', input: 'hi', tools: [{ type: 'web_search' }, { type: 'code_interpreter', container: { type: 'auto' } }, { type: 'web_search' }] });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-pgw-dropped-tools')).toBe('web_search, code_interpreter');
    expect(sent().tools).toBeUndefined();
    // A response object repeats the request's tools as they were sent.
    expect(((await response.json()) as { tools: unknown[] }).tools).toEqual([{ type: 'web_search' }, { type: 'code_interpreter', container: { type: 'auto' } }, { type: 'web_search' }]);
  });

  it("answers a namespace's tool call under its own name and namespace, whole and streamed, and takes it back", async () => {
    h.mock.setSource('main', { steps: [{ kind: 'tool_calls', calls: [{ id: 'call_1', name: 'crm__lookup', arguments: { id: '42' } }] }] });
    const whole = (await (await post({ model: 'gpt-4o-mini', input: 'who is 42?', tools: [crm] })).json()) as { output: Record<string, unknown>[] };
    const call = whole.output.find((item) => item.type === 'function_call')!;
    expect(call).toMatchObject({ call_id: 'call_1', name: 'lookup', namespace: 'crm', arguments: '{"id":"42"}' });

    h.mock.setSource('main', { steps: [{ kind: 'tool_calls', calls: [{ id: 'call_2', name: 'crm__lookup', arguments: { id: '7' } }] }] });
    const stream = await (await post({ model: 'gpt-4o-mini', input: 'who is 7?', tools: [crm], stream: true })).text();
    const done = stream
      .split('\n\n')
      .filter((block) => block.startsWith('event: response.output_item.done'))
      .map((block) => (JSON.parse(block.slice(block.indexOf('data: ') + 6)) as { item: Record<string, unknown> }).item);
    expect(done).toContainEqual(expect.objectContaining({ type: 'function_call', call_id: 'call_2', name: 'lookup', namespace: 'crm' }));

    h.mock.setSource('main', { content: 'Ada' });
    const back = await post({ model: 'gpt-4o-mini', tools: [crm], input: [{ role: 'user', content: 'who is 42?' }, call, { type: 'function_call_output', call_id: 'call_1', output: 'Ada' }] });
    expect(back.status).toBe(200);
    expect(sent().messages[1]!.tool_calls![0]!.function.name).toBe('crm__lookup');
  });

  it.each([
    [{ tools: [{ ...crm, name: 'n'.repeat(60) }] }, 'tools[0].tools[0].name', 'must be 1 to 64'],
    [{ tools: [{ type: 'function', name: 'crm__lookup' }, crm] }, 'tools[1].tools[0].name', "repeats 'crm__lookup'"],
    [{ tools: [{ ...crm, tools: [] }] }, 'tools[0].tools', 'at least 1'],
    [{ tools: [{ type: 'web_search\r\nx-evil: 1' }] }, 'tools[0].type', 'must be a tool type'],
  ])('refuses %j with a 400 naming %s', async (fields, param, problem) => {
    const response = await post({ model: 'gpt-4o-mini', input: 'hi', ...fields });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { param: string; message: string } };
    expect(error.param).toBe(param);
    expect(error.message).toContain(problem);
  });
});

describe('PGW_SERVER__HOSTED_TOOLS=refuse', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(undefined, { PGW_SERVER__HOSTED_TOOLS: 'refuse' });
  });
  afterAll(() => h.close());

  it("refuses Codex's default request with a 400 naming the hosted tool, and sends nothing upstream", async () => {
    const response = await fetch(`${h.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(codexBody) });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { param: string; message: string } };
    expect(error.param).toBe(`tools[${codexBody.tools.findIndex((tool) => (tool as { type: string }).type === 'web_search')}].type`);
    expect(error.message).toContain("'web_search' is a hosted tool");
    expect(h.mock.requests('main')).toHaveLength(0);
  });
});
