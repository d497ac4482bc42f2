/**
 * The console at `/ui`: its page, script, style sheet and icon, the state as JSON
 * (`/ui/state`) and as a live stream (`/ui/events`), and the login. Who may look: on a server
 * without any key (API or admin) everyone the door lets in (loopback, unless opened on purpose);
 * otherwise only a session opened with an admin key — a tenant's API key is refused. Every answer
 * carries a strict Content-Security-Policy (this origin's script and style only, no framing).
 * The login checks that the form came from this origin (CSRF) and bounds failed attempts.
 * The one change the console makes, revoking a stored key (`DELETE /ui/keys/{id}`), takes the
 * same session and the same origin check: the session cookie stays scoped to `/ui`, and the
 * revocation is the admin API's own, so it is audited and spread like one made with an admin key.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OperatorKeys } from '../door/admin-keys.js';
import type { ApiKeys } from '../door/api-keys.js';
import type { ConsoleFeed } from './feed.js';
import { consolePage, FAVICON_SVG, LOGIN_PROBLEMS, loginPage, type LoginProblem } from './page.js';
import { CONSOLE_SCRIPT } from './script.js';
import { SESSION_COOKIE, type ConsoleSessions } from './sessions.js';
import type { ConsoleState, KeyView } from './state.js';
import { CONSOLE_STYLE } from './style.js';

export interface ConsoleParts {
  apiKeys: ApiKeys;
  adminKeys: OperatorKeys;
  sessions: ConsoleSessions;
  feed: ConsoleFeed;
  state: () => Promise<ConsoleState>;
  draining: () => boolean;
  /** Revokes a stored key as the admin API does (undefined: no such key); absent on a server without a key store. */
  revokeKey?: (id: string) => Promise<KeyView | undefined>;
}

/** A key id as the store makes them (`key_` and its characters); anything else is no key, never echoed. */
const KEY_ID = /^key_[A-Za-z0-9_-]{1,64}$/;

const MAX_LOGIN_BYTES = 4096;

export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // Not no-referrer: under it a browser sends `Origin: null` with the login form, which the CSRF check must refuse.
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

export function registerConsole(app: FastifyInstance, parts: ConsoleParts): void {
  // Encapsulated: the form parser and the headers hook apply to the console's routes only.
  void app.register(async (ui) => {
    ui.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: MAX_LOGIN_BYTES }, (_request, body, done) => done(null, new URLSearchParams(body as string)));
    ui.addHook('onSend', async (_request, reply) => {
      reply.headers(CONSOLE_HEADERS);
    });
    const open = () => parts.apiKeys.size === 0 && parts.adminKeys.size === 0;
    const admitted = (request: FastifyRequest) => open() || parts.sessions.valid(request.headers.cookie);

    ui.get<{ Querystring: { login?: unknown } }>('/ui', async (request, reply) => {
      if (admitted(request)) return html(reply, consolePage(!open()));
      return html(reply, loginPage(parts.adminKeys.size === 0 ? 'closed' : loginProblemOf(request.query.login)));
    });
    ui.get('/ui/app.js', async (_request, reply) => reply.type('text/javascript; charset=utf-8').send(CONSOLE_SCRIPT));
    ui.get('/ui/app.css', async (_request, reply) => reply.type('text/css; charset=utf-8').send(CONSOLE_STYLE));
    ui.get('/ui/favicon.svg', async (_request, reply) => reply.type('image/svg+xml').send(FAVICON_SVG));

    ui.get('/ui/state', async (request, reply) => {
      if (!admitted(request)) return reply.code(401).send({ error: 'sign in at /ui with an admin key' });
      return parts.state();
    });

    ui.get('/ui/events', async (request, reply) => {
      if (!admitted(request)) return reply.code(401).send({ error: 'sign in at /ui with an admin key' });
      if (parts.draining()) return reply.code(503).send({ error: 'the server is draining' });
      reply.hijack();
      reply.raw.writeHead(200, { ...CONSOLE_HEADERS, 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive', 'x-request-id': request.id });
      parts.feed.add(reply.raw);
    });

    ui.post('/ui/login', async (request, reply) => {
      if (!sameOrigin(request)) return reply.code(403).send({ error: 'the login form must be sent from this console' });
      if (parts.adminKeys.size === 0) return backToLogin(reply, 'closed');
      if (!parts.sessions.mayTry()) return backToLogin(reply.header('retry-after', '60'), 'throttled');
      const key = request.body instanceof URLSearchParams ? (request.body.get('key') ?? '') : '';
      // Both lists are searched whatever the first says: the answer time tells nothing of which matched.
      const isAdmin = parts.adminKeys.admits(key);
      const isTenant = parts.apiKeys.has(key.trim());
      if (!isAdmin || isTenant) {
        parts.sessions.failed();
        return backToLogin(reply, 'refused');
      }
      const { id, maxAgeS } = parts.sessions.open();
      return reply.code(303).header('set-cookie', cookie(request, id, maxAgeS)).header('location', '/ui').send();
    });

    ui.delete<{ Params: { id: string } }>('/ui/keys/:id', async (request, reply) => {
      if (!sameOrigin(request)) return reply.code(403).send({ error: 'a revocation must be sent from this console' });
      if (!admitted(request)) return reply.code(401).send({ error: 'sign in at /ui with an admin key' });
      const { id } = request.params;
      const record = parts.revokeKey !== undefined && KEY_ID.test(id) ? await parts.revokeKey(id) : undefined;
      if (record === undefined) return reply.code(404).send({ error: parts.revokeKey === undefined ? 'this server keeps no keys' : 'no such key' });
      return record;
    });

    ui.post('/ui/logout', async (request, reply) => {
      if (!sameOrigin(request)) return reply.code(403).send({ error: 'the logout form must be sent from this console' });
      parts.sessions.end(request.headers.cookie);
      return reply.code(303).header('set-cookie', cookie(request, '', 0)).header('location', '/ui').send();
    });
  });
}

/**
 * A refused login goes back to the form with its reason (post/redirect/get): the form is never
 * re-sent by a reload, and the browser logs no failed request. The reason is one of a fixed set.
 */
const backToLogin = (reply: FastifyReply, problem: LoginProblem) => reply.code(303).header('location', `/ui?login=${problem}`).send();

const loginProblemOf = (value: unknown): LoginProblem | undefined => (LOGIN_PROBLEMS as readonly unknown[]).includes(value) ? (value as LoginProblem) : undefined;

const html = (reply: FastifyReply, page: string) => reply.type('text/html; charset=utf-8').send(page);

/** `HttpOnly` (no script reads it), `SameSite=Strict` (no other site sends it), `Path=/ui`, `Secure` over TLS. */
function cookie(request: FastifyRequest, value: string, maxAgeS: number): string {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  return `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/ui; Max-Age=${maxAgeS}${secure}`;
}

/** The form or request came from a page of this origin: its `Origin` names this scheme and `Host` exactly. */
function sameOrigin(request: FastifyRequest): boolean {
  const { origin, host } = request.headers;
  return typeof origin === 'string' && host !== undefined && origin === `${request.protocol}://${host}`;
}
