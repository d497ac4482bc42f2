// The floor of any Node proxy, to judge `pgw serve`'s CPU per request against (plain node, no
// framework, no validation, no governance, no log): `node:http`, `JSON.parse` of the body, one
// undici `Pool` request to the upstream, `JSON.stringify` of its answer. Started with the upstream's
// URL and route (default chat) as its arguments; tells its parent its own URL over IPC and exits
// when the IPC closes.
import http from 'node:http';
import { Pool } from 'undici';

const [upstream, route = 'chat'] = process.argv.slice(2);
// No bound on its connections, as pgw serve's agent has none.
const pool = new Pool(upstream);
const server = http.createServer(async (req, res) => {
  try {
    let text = '';
    for await (const chunk of req) text += chunk;
    const request = JSON.parse(text);
    const answer = await pool.request({ method: 'POST', path: `/${route}/v1/chat/completions`, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...request, stream: false }) });
    const body = JSON.stringify(await answer.body.json());
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  } catch {
    res.writeHead(502).end();
  }
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send({ url: `http://127.0.0.1:${server.address().port}` }));
process.on('disconnect', () => process.exit(0));
