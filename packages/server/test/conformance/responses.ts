/**
 * The Responses API's answers as the server sent them, checked against the OpenAI OpenAPI document:
 * `responsesCheckingFetch` is a `fetch` for an SDK that tees every `POST /v1/responses` answer (and
 * every `GET /v1/responses/{id}` of a stored one), so
 * what is checked is the body on the wire, not what the SDK made of it (it drops what it does not
 * know). A whole answer is a `Response`, each SSE event a `ResponseStreamEvent` (the member its
 * `type` names), an error answer an `ErrorResponse`. With `requests: 'checked'`, for a test that
 * writes its bodies itself, the request of an answered call must be a `CreateResponse` too, so the
 * tests exercise the API's shapes, not ones the server happens to accept.
 */
import { serverSentEvents, specIssues } from '@pgw/testkit/internal';

const checks: Promise<string[]>[] = [];

/** `requests: 'sdk-built'` for an SDK that writes the bodies itself: what it sends is not this server's to check. */
export function responsesCheckingFetch({ requests }: { requests: 'checked' | 'sdk-built' }): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : input);
    const method = init?.method ?? 'GET';
    // A created response, and a stored one read back by id (GET /v1/responses/{id}), are the same `Response`.
    const checked = (method === 'POST' && url.pathname.endsWith('/v1/responses')) || (method === 'GET' && /\/v1\/responses\/[^/]+$/.test(url.pathname));
    if (checked && response.body !== null) {
      const request = requests === 'checked' && typeof init?.body === 'string' ? init.body : undefined;
      checks.push(bodyText(response.clone().body!).then((body) => exchangeDrifts(request, response.status, response.headers.get('content-type') ?? '', body)));
    }
    return response;
  };
}

/** The drifts of every exchange since the last call, once each body has been read to its end. */
export async function takeResponsesDrifts(): Promise<string[]> {
  return (await Promise.all(checks.splice(0))).flat();
}

/** What the server sent as an answer to `request`, as drifts from the spec: one line each, naming the event and the path. */
export function exchangeDrifts(request: string | undefined, status: number, contentType: string, body: string): string[] {
  const drifts: string[] = [];
  const check = (what: string, schema: string, text: string) => {
    const value = jsonOf(text);
    if (value === NOT_JSON) drifts.push(`${what}: not JSON: ${text.slice(0, 200)}`);
    else drifts.push(...specIssues(schema, value).map((issue) => `${what} (${schema}): ${issue}`));
  };
  if (status === 200 && request !== undefined) check('the request', 'CreateResponse', request);
  if (status !== 200) check(`the ${status} answer`, 'ErrorResponse', body);
  else if (!contentType.startsWith('text/event-stream')) check('the answer', 'Response', body);
  else {
    serverSentEvents(body).forEach(({ event, data }, index) => {
      const type = String((jsonOf(data) as { type?: unknown } | undefined)?.type);
      const what = `event #${index} ${type}`;
      if (event !== type) drifts.push(`${what}: its SSE event name is ${event ?? 'missing'}`);
      check(what, 'ResponseStreamEvent', data);
    });
  }
  return drifts;
}

const NOT_JSON = Symbol('not JSON');

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

/** The whole body; one cut short (the exchange broke off) as far as it came, which is still checked. */
async function bodyText(body: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  try {
    for await (const chunk of body) text += decoder.decode(chunk, { stream: true });
  } catch {
    // Nothing to add: what arrived before the break is the answer that is checked.
  }
  return text;
}
