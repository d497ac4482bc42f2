/**
 * A small loopback HTTP server answering the admin API as the keys contract pins it (records in
 * memory), for the CLI's own logic: which request each command sends, what it prints, how it shows
 * a refusal. It records every request it got. `refuse` makes the next request fail with a given answer.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const STUB_ADMIN_KEY = 'admin-key-stub-0123456789';

export interface SeenRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
}

export interface StubAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface AdminApiStub {
  url: string;
  seen: SeenRequest[];
  /** The next request gets this answer instead. */
  refuseNext(answer: StubAnswer): void;
  close(): Promise<void>;
}

const CREATED_AT = '2026-12-07T05:00:00.000Z';

function record(id: string, fields: Record<string, unknown>): Record<string, unknown> {
  return {
    object: 'api_key',
    id,
    name: fields.name ?? null,
    tenant: fields.tenant,
    models: fields.models ?? null,
    mcp: fields.mcp ?? null,
    priority: fields.priority ?? 'interactive',
    limits: { rpm: 0, tpm: 0, maxConcurrency: 0, ...(fields.limits as object | undefined) },
    budget: fields.budget ?? null,
    expiresAt: fields.expiresAt ?? null,
    createdAt: CREATED_AT,
    lastUsedAt: null,
    state: 'active',
    prefix: 'pgw_sk_Ab3d',
  };
}

export async function startAdminApiStub(): Promise<AdminApiStub> {
  const seen: SeenRequest[] = [];
  const keys = new Map<string, Record<string, unknown>>();
  let refusal: StubAnswer | undefined;
  let issued = 0;
  const server: Server = createServer((request, response) => {
    void readBody(request).then((body) => {
      const path = request.url ?? '';
      seen.push({ method: request.method ?? '', path, authorization: request.headers.authorization, body });
      const answer = refusal ?? route(request.method ?? '', path, body);
      refusal = undefined;
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      response.end(JSON.stringify(answer.body));
    });
  });

  const route = (method: string, path: string, body: unknown): StubAnswer => {
    const fields = (body ?? {}) as Record<string, unknown>;
    const [pathname, search] = path.split('?') as [string, string | undefined];
    const id = /^\/admin\/keys\/([^/]+)/.exec(pathname)?.[1];
    const existing = id === undefined ? undefined : keys.get(decodeURIComponent(id));
    const notFound = { status: 404, body: { error: { message: `no key ${id}`, type: 'not_found_error', code: 'key_not_found' } } };
    if (method === 'POST' && pathname === '/admin/keys') {
      const made = record(`key_${String(++issued).padStart(16, '0')}`, fields);
      keys.set(made.id as string, made);
      return { status: 201, body: { ...made, key: `pgw_sk_Ab3d${'x'.repeat(39)}${issued}` } };
    }
    if (method === 'GET' && pathname === '/admin/keys') {
      const query = new URLSearchParams(search);
      const data = [...keys.values()].filter((k) => !query.has('tenant') || k.tenant === query.get('tenant'));
      return { status: 200, body: { object: 'list', data } };
    }
    if (existing === undefined) return notFound;
    if (method === 'GET' && pathname.endsWith('/rotate') === false) {
      return { status: 200, body: { ...existing, usage: { rpmUsed: 3, tpmUsed: 1200, inflight: 1, spentUsd: 0.25 } } };
    }
    if (method === 'PATCH') {
      const limits = { ...(existing.limits as object), ...(fields.limits as object | undefined) };
      Object.assign(existing, fields, { limits });
      return { status: 200, body: existing };
    }
    if (method === 'POST' && pathname.endsWith('/rotate')) {
      existing.state = 'rotating';
      return { status: 200, body: { ...existing, key: `pgw_sk_Ab3d${'y'.repeat(40)}`, previousKeyExpiresAt: '2026-12-08T05:00:00.000Z' } };
    }
    if (method === 'DELETE') {
      existing.state = 'revoked';
      return { status: 200, body: existing };
    }
    return { status: 405, body: { error: { message: 'no such route', type: 'invalid_request_error' } } };
  };

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    refuseNext: (answer) => void (refusal = answer),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}
