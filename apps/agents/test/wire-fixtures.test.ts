/**
 * The recorded bodies of packages/wire/test/fixtures (apps/agents/scripts/record-wire-fixtures.ts):
 * one file per client in the fixed format, scrubbed of per-run values, and each OpenAI-protocol body
 * conforming to the vendored OpenAI OpenAPI document, but for the deviations the clients really send,
 * listed here exactly (the fixtures keep what the client sent; a new deviation fails until listed).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { specIssues } from '@pgw/testkit/internal';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../../', import.meta.url);
const FIXTURES = new URL('packages/wire/test/fixtures/', ROOT);
const CLIENTS = ['agents-sdk', 'ai-sdk', 'anthropic-sdk', 'claude-code', 'codex-cli', 'langchain', 'openai-sdk'];
const PATHS = { chat: '/v1/chat/completions', responses: '/v1/responses', messages: '/v1/messages', embeddings: '/v1/embeddings' } as const;
/** The OpenAI document's request schema of each protocol (Messages is Anthropic's, which is not vendored). */
const SCHEMAS: Partial<Record<keyof typeof PATHS, string>> = { chat: 'CreateChatCompletionRequest', responses: 'CreateResponse', embeddings: 'CreateEmbeddingRequest' };

/** What clients send off the OpenAI document, by `<client>: <request name>`. */
const DEVIATIONS: Record<string, string[]> = {
  // @ai-sdk/openai's Responses model leaves `strict` out of a function tool unless asked; the document requires it.
  'ai-sdk: openai.responses, generateText with a tool': ["/tools/0 must have required property 'strict' (#/required)"],
  'ai-sdk: openai.responses, generateText tool-result turn': ["/tools/0 must have required property 'strict' (#/required)"],
};

interface Fixture {
  client: string;
  version: string;
  recordedWith: string;
  requests: { name: string; protocol: keyof typeof PATHS; path: string; body: Record<string, unknown> }[];
}

const read = (client: string) => JSON.parse(readFileSync(new URL(`${client}.json`, FIXTURES), 'utf8')) as Fixture;

describe('the wire fixtures', () => {
  it('are one file per client, and nothing else but their README', () => {
    expect(readdirSync(FIXTURES).sort()).toEqual([...CLIENTS.map((client) => `${client}.json`), 'README.md'].sort());
  });

  it.each(CLIENTS)('%s: names its client, version and recorder, and each request its protocol, path and a body', (client) => {
    const fixture = read(client);
    expect(Object.keys(fixture)).toEqual(['client', 'version', 'recordedWith', 'requests']);
    expect(fixture.client).toBe(client);
    expect(fixture.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(existsSync(new URL(fixture.recordedWith, ROOT))).toBe(true);
    expect(fixture.requests.length).toBeGreaterThan(0);
    expect(new Set(fixture.requests.map((request) => request.name)).size).toBe(fixture.requests.length);
    for (const request of fixture.requests) {
      expect(Object.keys(request)).toEqual(['name', 'protocol', 'path', 'body']);
      expect(request.path).toBe(PATHS[request.protocol]);
      expect(typeof request.body['model']).toBe('string');
    }
  });

  it.each(CLIENTS)('%s: holds no value of one run or machine (UUIDs are placeholders, no temporary folder)', (client) => {
    const text = readFileSync(new URL(`${client}.json`, FIXTURES), 'utf8');
    const uuids = text.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi) ?? [];
    expect(uuids.filter((uuid) => !uuid.startsWith('00000000-0000-'))).toEqual([]);
    expect(text).not.toMatch(/pgw-agents-|\/tmp\//);
  });

  it.each(CLIENTS)('%s: OpenAI-protocol bodies conform to the OpenAI document, but for the deviations listed', (client) => {
    const checked = read(client).requests.flatMap(({ name, protocol, body }) => {
      const schema = SCHEMAS[protocol];
      return schema === undefined ? [] : [[`${client}: ${name}`, specIssues(schema, body)] as const];
    });
    expect(Object.fromEntries(checked.filter(([, issues]) => issues.length > 0))).toEqual(Object.fromEntries(checked.map(([key]) => key).filter((key) => key in DEVIATIONS).map((key) => [key, DEVIATIONS[key]])));
  });
});
