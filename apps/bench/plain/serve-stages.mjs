// Where a request's time goes inside `pgw serve`, for the serve bench's stage breakdown: loaded into
// the server with `--import` (NODE_OPTIONS), it stamps each HTTP request from Node's and undici's
// diagnostics channels, with no change to the server. Per request, in epoch milliseconds:
//   ready     its connection was accepted (the first request on it) or its previous answer finished
//   parsed    its headers were parsed (http.server.request.start)
//   sent      the governed call sent it upstream: admitted by the governance (undici:request:create)
//   headers   the upstream's response headers arrived (undici:request:headers)
//   answered  its answer was handed to the kernel (http.server.response.finish)
// The load names each request twice with one id — an `x-bench-id` header and `[bench:ID]` in its
// message, which the server forwards upstream — so an upstream request is tied to the request that
// made it, wherever in the governance it was sent from. On SIGUSR2 it writes the requests answered
// since the last signal to PGW_BENCH_STAGES_FILE (JSON: per request the five stamps, null for one
// not taken, and 1 when it was its connection's first) and forgets them.
import { subscribe } from 'node:diagnostics_channel';
import { renameSync, writeFileSync } from 'node:fs';

const file = process.env.PGW_BENCH_STAGES_FILE;
if (!file) throw new Error('serve-stages.mjs needs PGW_BENCH_STAGES_FILE');
const ID_IN_BODY = /\[bench:([^\]]+)\]/;
const now = () => performance.timeOrigin + performance.now();
const readySince = new WeakMap();
const byId = new Map();
const upstreamOf = new WeakMap();
let answered = [];

subscribe('net.server.socket', ({ socket }) => readySince.set(socket, { at: now(), first: true }));
subscribe('http.server.request.start', ({ request, socket }) => {
  const ready = readySince.get(socket);
  const stamps = { ready: ready?.at ?? null, first: ready?.first ?? false, parsed: now(), sent: null, headers: null };
  readySince.set(socket, { at: null, first: false });
  const id = request.headers['x-bench-id'];
  if (typeof id === 'string') byId.set(id, stamps);
  request.benchStamps = stamps;
});
subscribe('undici:request:create', ({ request }) => {
  const { body } = request;
  const text = typeof body === 'string' ? body : body instanceof Uint8Array ? Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('latin1') : '';
  const id = ID_IN_BODY.exec(text)?.[1];
  const stamps = id === undefined ? undefined : byId.get(id);
  if (stamps === undefined || stamps.sent !== null) return;
  stamps.sent = now();
  upstreamOf.set(request, stamps);
});
subscribe('undici:request:headers', ({ request }) => {
  const stamps = upstreamOf.get(request);
  if (stamps !== undefined && stamps.headers === null) stamps.headers = now();
});
subscribe('http.server.response.finish', ({ request, socket }) => {
  const at = now();
  readySince.set(socket, { at, first: false });
  const stamps = request.benchStamps;
  if (stamps === undefined) return;
  byId.delete(request.headers['x-bench-id']);
  answered.push([stamps.ready, stamps.parsed, stamps.sent, stamps.headers, at, stamps.first ? 1 : 0]);
});
process.on('SIGUSR2', () => {
  writeFileSync(`${file}.part`, JSON.stringify(answered));
  renameSync(`${file}.part`, file);
  answered = [];
});
