/**
 * The check of the Responses answers against the OpenAI OpenAPI document (test/conformance): it must
 * name the event and the path of a drift, and see the bytes the server sent.
 */
import { describe, expect, it } from 'vitest';
import { exchangeDrifts, takeResponsesDrifts } from './conformance/responses.js';
import { startHarness } from './helpers.js';

describe('the Responses answers against the OpenAI OpenAPI document', () => {
  it('names the event, the schema and the path of what drifts', () => {
    const events = 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":0,"output_index":0,"content_index":0,"delta":"hi","logprobs":[]}\n\n: keep-alive\n\nevent: response.done\ndata: {"type":"response.completed","sequence_number":1}\n\n';
    const drifts = exchangeDrifts(undefined, 200, 'text/event-stream', events);
    expect(drifts).toContain("event #0 response.output_text.delta (ResponseStreamEvent): (root) must have required property 'item_id' (#/required)");
    expect(drifts).toContain('event #1 response.completed: its SSE event name is response.done');
    expect(drifts).toContain("event #1 response.completed (ResponseStreamEvent): (root) must have required property 'response' (#/required)");
    expect(exchangeDrifts(undefined, 200, 'text/event-stream', 'data: {"type":"response.nope"}\n\n')).toEqual([
      'event #0 response.nope: its SSE event name is missing',
      'event #0 response.nope (ResponseStreamEvent): /type must be equal to one of the allowed values (#/then/properties/type/enum)',
    ]);
    expect(exchangeDrifts(undefined, 200, 'application/json', '{"object":"response"}').join('\n')).toMatch(/^the answer \(Response\): \(root\) must have required property 'id'/);
    expect(exchangeDrifts(undefined, 502, 'application/json', '{"error":{"message":"x"}}').join('\n')).toContain("the 502 answer (ErrorResponse): /error must have required property 'type'");
    expect(exchangeDrifts('{"model":"m","input":"hi","temperature":5}', 200, 'text/event-stream', '').join('\n')).toContain('the request (CreateResponse): /temperature must be <= 2');
    expect(exchangeDrifts(undefined, 200, 'application/json', 'not json')).toEqual(['the answer: not JSON: not json']);
  });

  it('checks the bytes the server sent, not what the SDK made of them', async () => {
    const dropping = await startHarness(undefined, {}, [], {
      // What the SDK never notices: a whole answer without its `created_at`.
      beforeListen: (server) => server.app.addHook('onSend', async (request, _reply, payload) => (request.url === '/v1/responses' ? JSON.stringify({ ...JSON.parse(String(payload)), created_at: undefined }) : payload)),
    });
    try {
      await dropping.openai().responses.create({ model: 'gpt-4o-mini', input: 'hi' });
      expect(await takeResponsesDrifts()).toContain("the answer (Response): (root) must have required property 'created_at' (#/allOf/2/required)");
    } finally {
      await dropping.close();
    }
  });
});
