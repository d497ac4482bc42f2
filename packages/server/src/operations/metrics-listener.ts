/**
 * `/metrics` on a listener of its own (`PGW_SERVER__METRICS_ADDR`): Prometheus scrapes it without a
 * key, so the address, not a key, is what keeps the tenants' names in. It serves `GET /metrics` and
 * nothing else — no route of the API, no console — on plain `node:http`, apart from the API's door.
 */
import { createServer, type Server } from 'node:http';
import type { ServerMetrics } from './metrics.js';

export interface ListenAddress {
  host: string;
  port: number;
}

/** `[host]:port`, `host:port`, `:port` or `port`; the host defaults to loopback. Undefined when it is none of these. */
export function parseListenAddress(text: string): ListenAddress | undefined {
  const match = /^(?:(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):)?(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[3]);
  if (match === null || port > 65_535) return undefined;
  return { host: match[1] ?? (match[2] || '127.0.0.1'), port };
}

export class MetricsListener {
  readonly #server: Server;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async open(metrics: ServerMetrics, { host, port }: ListenAddress): Promise<{ listener: MetricsListener; url: string }> {
    const server = createServer((request, response) => {
      const path = (request.url ?? '').split('?', 1)[0];
      if (path !== '/metrics') return void response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: this listener serves /metrics\n');
      if (request.method !== 'GET' && request.method !== 'HEAD') return void response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end();
      metrics.text().then(
        (text) => response.writeHead(200, { 'content-type': metrics.contentType }).end(request.method === 'HEAD' ? undefined : text),
        () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    const address = server.address();
    const bound = typeof address === 'object' && address !== null ? address.port : port;
    return { listener: new MetricsListener(server), url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}/metrics` };
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeAllConnections();
    await closed;
  }
}
