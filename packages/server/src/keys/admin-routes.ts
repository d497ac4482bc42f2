/**
 * The admin API under `/admin/keys` (KEYS-API.md): create (the key shown once, in the answer), list,
 * show, change, rotate, revoke, and the audit log. Every route is opened by the admin gate before its
 * body is read (a refused body is discarded, never parsed); errors are the door's JSON shape.
 */
import type { Clock, KeyBounds } from '@pgw/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { InvalidRequestFieldError } from '@pgw/wire';
import { discardBody, hasBody } from '../door/refused-body.js';
import type { AdminGate } from './admin-gate.js';
import { readAuditQuery, readCreateBody, readListQuery, readPatchBody, readRotateBody } from './admin-body.js';
import type { KeyAdmin } from './key-admin.js';
import { KeyNotFoundError } from './key-admin.js';
import { keyRecordOf } from './key-view.js';
import type { StoredKeys } from './stored-keys.js';
import { boundsOf } from './key-bounds.js';
import type { KeyUsage } from './key-usage.js';

/** The most rows one list answers (newest first). */
export const MAX_LISTED = 1000;
const KEY_ID = /^key_[0-9a-f]{16}$/;

export interface AdminRouteParts {
  gate: AdminGate;
  admin: KeyAdmin;
  keys: StoredKeys;
  now: Clock;
  /** The key's use now, read from the governor. */
  usageOf: (bounds: KeyBounds) => Promise<KeyUsage>;
}

export function registerKeyAdminRoutes(app: FastifyInstance, { gate, admin, keys, now, usageOf }: AdminRouteParts): void {
  const actors = new WeakMap<FastifyRequest, string>();
  const opened = {
    onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        actors.set(request, await gate.actorOf(request.headers));
      } catch (error) {
        // Answered from the headers: the body is discarded as it comes, or the connection closed after.
        if (hasBody(request.raw) && !discardBody(request.raw)) reply.header('connection', 'close');
        throw error;
      }
    },
  };
  const actorOf = (request: FastifyRequest) => actors.get(request)!;
  const idOf = (request: FastifyRequest) => {
    const { id } = request.params as { id: string };
    if (!KEY_ID.test(id)) throw new InvalidRequestFieldError('id', 'must be key_ followed by 16 hex characters');
    return id;
  };

  app.post('/admin/keys', opened, async (request, reply) => {
    const { record, key } = await admin.create(readCreateBody(request.body), actorOf(request));
    return reply.code(201).send({ ...keyRecordOf(record, now()), key });
  });

  app.get('/admin/keys', opened, async (request) => {
    const { tenant, state } = readListQuery(request.query);
    const store = await keys.store();
    const at = now();
    // A finished rotation reads as active (its record may still say rotating): filter on what is shown.
    const rows = (await store.list({ ...(tenant !== undefined && { tenant }), limit: MAX_LISTED })).map((key) => keyRecordOf(key, at));
    return { object: 'list', data: state === undefined ? rows : rows.filter((row) => row.state === state) };
  });

  app.get('/admin/keys/audit', opened, async (request) => {
    const { keyId } = readAuditQuery(request.query);
    const entries = await (await keys.store()).auditLog({ ...(keyId !== undefined && { keyId }), limit: MAX_LISTED });
    return { object: 'list', data: entries.map(({ at, actor, action, keyId: id, changes }) => ({ at: new Date(at).toISOString(), actor, action, keyId: id, changes })) };
  });

  app.get('/admin/keys/:id', opened, async (request) => {
    const id = idOf(request);
    const record = await (await keys.store()).get(id);
    if (record === undefined) throw new KeyNotFoundError(id);
    return { ...keyRecordOf(record, now()), usage: await usageOf(boundsOf(record)) };
  });

  app.patch('/admin/keys/:id', opened, async (request) => keyRecordOf(await admin.update(idOf(request), readPatchBody(request.body), actorOf(request)), now()));

  app.post('/admin/keys/:id/rotate', opened, async (request) => {
    const id = idOf(request);
    const { graceS } = readRotateBody(request.body);
    const { record, key, previousKeyExpiresAt } = await admin.rotate(id, graceS, actorOf(request));
    return { ...keyRecordOf(record, now()), key, previousKeyExpiresAt: new Date(previousKeyExpiresAt).toISOString() };
  });

  app.delete('/admin/keys/:id', opened, async (request) => keyRecordOf(await admin.revoke(idOf(request), actorOf(request)), now()));
}
