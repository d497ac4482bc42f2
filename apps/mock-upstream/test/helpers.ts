import { request } from 'node:http';

/** The `data:` payloads of an SSE body, in order. */
export function sseData(body: string): string[] {
  return body
    .split('\n\n')
    .filter((event) => event.startsWith('data: '))
    .map((event) => event.slice('data: '.length));
}

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

export const chatBody = (extra: Record<string, unknown> = {}) => ({
  model: 'mock-model',
  messages: [{ role: 'user', content: 'say hello please' }],
  ...extra,
});

/** A pool-free node:http POST, so a test can see exactly which sockets and timers stay open. */
export function rawPost(url: string, body: string): { done: Promise<{ status?: number; error?: Error }>; destroy(): void } {
  const req = request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } });
  const done = new Promise<{ status?: number; error?: Error }>((resolve) => {
    req.on('response', (res) => {
      res.on('error', (error) => resolve({ status: res.statusCode, error }));
      res.on('end', () => resolve({ status: res.statusCode }));
      res.resume();
    });
    req.on('error', (error) => resolve({ error }));
  });
  req.end(body);
  return { done, destroy: () => req.destroy() };
}

/** Response JSON for loose assertions (tests inspect wire shapes, not typed values). */
export const jsonBody = (res: Response): Promise<any> => res.json();
