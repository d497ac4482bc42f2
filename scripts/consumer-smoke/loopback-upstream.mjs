// A minimal OpenAI-compatible chat endpoint on loopback: the consumer project has only the packed
// packages, not the workspace's mock, so it brings its own upstream.
import { createServer } from 'node:http';

export const ANSWER = 'hello from the loopback upstream';

export async function startUpstream() {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || !request.url?.endsWith('/v1/chat/completions')) {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"route not found"}}');
        return;
      }
      const { model } = JSON.parse(body);
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'chatcmpl-smoke',
          object: 'chat.completion',
          model,
          choices: [{ index: 0, message: { role: 'assistant', content: ANSWER }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 3, completion_tokens: 6, total_tokens: 9 },
        }),
      );
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
