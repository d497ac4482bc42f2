// The zero-logic upstream: plain node (no tsx, no TypeScript), fixed bytes per route, the request
// body never parsed (node discards it). Routes by the first path segment:
//   /chat/…   chat completion JSON      /packet/… SSE, one token per write (setImmediate between)
//   /burst/…  the same SSE in one write /embed/…  embeddings JSON      /hang/… never answers
//   /slow/…   the chat JSON after ZERO_SLOW_MS (default 100): an upstream that is not the bottleneck
//   /second/… the chat JSON after 1 s: a long answer, as a user of an LLM waits for one
//   /spread/… the chat JSON after 50–150 ms, each request the next of the 101 whole-ms delays in a
//             fixed stride (any 101 requests in a row get each once, median 100 ms): closed-loop
//             connections fall out of step, as on an upstream whose latency varies
// Started by src/zero-upstream.ts; tells its parent the URL over IPC and exits when the IPC closes.
import http from 'node:http';

const TOKENS = Number(process.env.ZERO_STREAM_TOKENS ?? 200);
const SLOW_MS = Number(process.env.ZERO_SLOW_MS ?? 100);
const SPREAD = { fromMs: 50, steps: 101, stride: 37 };
let spreadNext = 0;
const CHAT_ANSWER = process.env.ZERO_CHAT_ANSWER ?? 'Hello!';
const usage = { prompt_tokens: 12, completion_tokens: TOKENS, total_tokens: 12 + TOKENS };
const chatBody = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-zero',
    object: 'chat.completion',
    created: 1,
    model: 'bench-model',
    choices: [{ index: 0, message: { role: 'assistant', content: CHAT_ANSWER }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 12, completion_tokens: 16, total_tokens: 28 },
  }),
);
const embedBody = Buffer.from(
  JSON.stringify({
    object: 'list',
    data: [{ object: 'embedding', index: 0, embedding: Array.from({ length: 64 }, (_, i) => i / 64) }],
    model: 'bench-embed',
    usage: { prompt_tokens: 8, total_tokens: 8 },
  }),
);
const event = (payload) => Buffer.from(`data: ${JSON.stringify(payload)}\n\n`);
const chunk = (delta, finish) => ({ id: 'chatcmpl-zero', object: 'chat.completion.chunk', created: 1, model: 'bench-model', choices: [{ index: 0, delta, finish_reason: finish }] });
const tokenEvents = Array.from({ length: TOKENS }, (_, i) => event(chunk({ content: i === 0 ? `tok${i}` : ` tok${i}` }, i === TOKENS - 1 ? 'stop' : null)));
const tailEvents = [event({ ...chunk({}, null), choices: [], usage }), Buffer.from('data: [DONE]\n\n')];
const sseAll = Buffer.concat([...tokenEvents, ...tailEvents]);
const jsonHeaders = (body) => ({ 'content-type': 'application/json', 'content-length': body.length });
const sseHeaders = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

function writePackets(res, events, i) {
  if (res.destroyed) return;
  if (i === events.length) return void res.end();
  res.write(events[i]);
  setImmediate(writePackets, res, events, i + 1);
}
const packetEvents = [...tokenEvents, ...tailEvents];

const server = http.createServer((req, res) => {
  const route = req.url.slice(1, req.url.indexOf('/', 1));
  if (route === 'chat') return void res.writeHead(200, jsonHeaders(chatBody)).end(chatBody);
  if (route === 'embed') return void res.writeHead(200, jsonHeaders(embedBody)).end(embedBody);
  if (route === 'burst') return void res.writeHead(200, sseHeaders).end(sseAll);
  if (route === 'packet') {
    res.writeHead(200, sseHeaders);
    res.flushHeaders();
    return void setImmediate(writePackets, res, packetEvents, 0);
  }
  if (route === 'slow') return void setTimeout(() => res.writeHead(200, jsonHeaders(chatBody)).end(chatBody), SLOW_MS);
  if (route === 'second') return void setTimeout(() => res.writeHead(200, jsonHeaders(chatBody)).end(chatBody), 1000);
  if (route === 'spread') {
    const delayMs = SPREAD.fromMs + ((spreadNext++ * SPREAD.stride) % SPREAD.steps);
    return void setTimeout(() => res.writeHead(200, jsonHeaders(chatBody)).end(chatBody), delayMs);
  }
  if (route === 'hang') return;
  res.writeHead(404).end();
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send({ url: `http://127.0.0.1:${server.address().port}` }));
process.on('disconnect', () => process.exit(0));
