import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';

describe('the official openai SDK against pgw serve', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sources: { main: { content: 'hello from the mock' } } });
  });
  afterAll(() => h.close());

  it('chats, with usage and the governed extras in headers', async () => {
    const { data, response } = await h
      .openai()
      .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'say hello' }], temperature: 0.2 })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe('hello from the mock');
    expect(data.choices[0]!.finish_reason).toBe('stop');
    expect(data.usage!.total_tokens).toBe(data.usage!.prompt_tokens + data.usage!.completion_tokens);
    expect(data.usage!.prompt_tokens_details!.cached_tokens).toBe(0);
    expect(response.headers.get('x-pgw-source')).toBe('main');
    expect(response.headers.get('x-pgw-call-id')).toMatch(/.+/);
    expect(response.headers.get('x-pgw-cost-usd')).toMatch(/^\d/);
    const sent = h.mock.requests('main').at(-1)!.body as Record<string, unknown>;
    expect(sent['temperature']).toBe(0.2);
  });

  it('streams, with a final usage chunk when include_usage is set', async () => {
    const stream = await h.openai().chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'say hello' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined | null;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish ??= chunk.choices[0]?.finish_reason;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('hello from the mock');
    expect(finish).toBe('stop');
    expect(usage!.completion_tokens).toBeGreaterThan(0);
  });

  it('embeds, as the SDK asks (base64) and as floats', async () => {
    const sdk = await h.openai().embeddings.create({ model: 'text-embedding-3-small', input: ['one', 'two'] });
    expect(sdk.data).toHaveLength(2);
    expect(sdk.data[0]!.embedding).toHaveLength(8);
    const floats = await h.openai().embeddings.create({ model: 'text-embedding-3-small', input: 'one', encoding_format: 'float' });
    expect(floats.data[0]!.embedding[0]).toBeCloseTo(sdk.data[0]!.embedding[0]!, 5);
  });

  it('lists models', async () => {
    const models = await h.openai().models.list();
    expect(models.data.map((m) => m.id)).toEqual(expect.arrayContaining(['gpt-4o-mini', 'text-embedding-3-small']));
  });

  it('refuses a bad field with a 400 naming it, sending nothing upstream', async () => {
    const before = h.mock.counters('main').chat;
    const error = await h
      .openai()
      .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], stream_options: { include_usage: 'yes' as never } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('stream_options.include_usage');
    const role = await h
      .openai()
      .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'robot' as never, content: 'x' }] })
      .catch((e: unknown) => e);
    expect(role).toBeInstanceOf(OpenAI.BadRequestError);
    expect((role as Error).message).toMatch(/\[0\]\.role/);
    expect(h.mock.counters('main').chat).toBe(before);
  });

  it('sends content parts, the effort and the end-user id where they belong', async () => {
    const parts = [
      { type: 'text' as const, text: 'what is this?' },
      { type: 'image_url' as const, image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
    ];
    await h.openai().chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: parts }], reasoning_effort: 'low', user: 'end-user-7' });
    const sent = h.mock.requests('main').at(-1)!.body as Record<string, unknown>;
    expect((sent['messages'] as { content: unknown }[])[0]!.content).toEqual(parts);
    expect(sent['reasoning_effort']).toBe('low');
    expect(sent['user']).toBeUndefined();
  });
});
