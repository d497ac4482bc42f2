import { request } from 'undici';

/** The upstream's refusal of a bad request, as OpenAI words it (in a 400 body, or in-band inside a 200 stream). */
export const REJECTION = { message: 'bad input', type: 'invalid_request_error', code: 'invalid_value' };

export interface WireAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** One POST with plain undici, the whole answer read as text: tests assert on wire shapes. */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<WireAnswer> {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-interop-test', ...headers },
    body: JSON.stringify(body),
    headersTimeout: 15_000,
    bodyTimeout: 15_000,
  });
  const flat = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
  return { status: res.statusCode, headers: flat, text: await res.body.text() };
}

/** The `data:` payloads of an SSE body, in order. */
export function sseData(body: string): string[] {
  return body
    .split(/\r?\n\r?\n/)
    .map((event) => event.split(/\r?\n/).find((line) => line.startsWith('data:')))
    .filter((line): line is string => line !== undefined)
    .map((line) => line.slice('data:'.length).trim());
}

export const chat = (content: string, extra: Record<string, unknown> = {}) => ({
  model: 'interop-model',
  messages: [{ role: 'user', content }],
  ...extra,
});

/** The text of a chat completion stream's content deltas. */
export function streamedContent(events: string[]): string {
  return events
    .filter((data) => data !== '[DONE]')
    .map((data) => JSON.parse(data) as { choices?: Array<{ delta?: { content?: string } }> })
    .map((chunk) => chunk.choices?.[0]?.delta?.content ?? '')
    .join('');
}
