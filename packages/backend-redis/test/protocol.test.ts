import { afterAll, expect, it } from 'vitest';
import { PROTOCOLS } from './protocols.js';
import { scriptProtocol } from '../src/protocol.js';
import { connectionPool } from './redis.js';
import { protocolTable, readmeTable } from './protocol-doc.js';

const pool = connectionPool();
afterAll(() => pool.closeAll());

/** The names a script's Lua reads from `K`, `A` and `REPLY` (the shared functions included). */
function namesRead(lua: string, table: string): Set<string> {
  return new Set([...lua.matchAll(new RegExp(`\\b${table}\\.([A-Za-z][A-Za-z0-9]*)`, 'g'))].map((m) => m[1]!));
}

it.each(PROTOCOLS.map((p) => [p.spec.label, p] as const))('%s: the Lua reads every declared field and answers every declared reply', (_, protocol) => {
  const { keys, args, item, replies, lua } = protocol.spec;
  // Reading an undeclared name fails at run time (the next test); a declared name nobody reads is dead.
  expect([...keys, ...(item?.keys ?? []), ...(item?.shared?.keys ?? [])].filter((name) => !namesRead(lua, 'K').has(name))).toEqual([]);
  expect([...args, ...(item?.args ?? []), ...(item?.shared?.args ?? [])].filter((name) => !namesRead(lua, 'A').has(name))).toEqual([]);
  expect([...namesRead(lua, 'REPLY')].sort()).toEqual(Object.keys(replies).sort());
});

it('a script that reads a name its declaration lacks fails naming it, instead of reading nil', async () => {
  const redis = pool.open();
  const protocol = scriptProtocol({
    label: 'typo',
    keys: ['book'],
    args: ['amount'],
    replies: { done: { code: 1, fields: { value: 'number' } } },
    lua: 'return REPLY.done{value = A.amuont}',
  });
  await expect(protocol.run(redis, { keys: { book: 'pgw:test:typo' }, args: { amount: 1 } }, 2000)).rejects.toThrow('typo: undeclared arg amuont');
  const wrongReply = scriptProtocol({ label: 'typo_reply', keys: [], args: [], replies: { done: { code: 1, fields: {} } }, lua: 'return REPLY.don{}' });
  await expect(wrongReply.run(redis, { keys: {}, args: {} }, 2000)).rejects.toThrow('typo_reply: undeclared reply don');
});

it('encodes named fields in the declared order, items after the call, and refuses a missing field by name', () => {
  const demo = scriptProtocol({
    label: 'demo',
    keys: ['first', 'second'],
    args: ['now', 'limit'],
    item: { keys: ['own'], args: ['id', 'amount'] },
    replies: { done: { code: 1, fields: { count: 'number', note: 'string' } } },
    lua: 'return {}',
  });
  const call = { keys: { second: 'k2', first: 'k1' }, args: { limit: 5, now: '' } };
  expect(demo.encode(call, [{ keys: { own: 'a' }, args: { amount: 1, id: 'x' } }, { keys: { own: 'b' }, args: { id: 'y', amount: 2 } }])).toEqual({
    keys: ['k1', 'k2', 'a', 'b'],
    args: ['', 5, 'x', 1, 'y', 2],
  });
  expect(() => demo.encode({ keys: { first: 'k1' }, args: { now: '', limit: 1 } } as never)).toThrow('demo: field second missing');
  expect(demo.decode([1, '3', 'ok'])).toEqual({ kind: 'done', count: 3, note: 'ok' });
  expect(() => demo.decode([1, 'x', 'ok'])).toThrow('unexpected demo reply');
  expect(() => demo.decode([2])).toThrow('unexpected demo reply');
  expect(() => demo.decode([1, 3])).toThrow('unexpected demo reply');
});

it('generates the bindings the Lua reads: KEYS and ARGV by name, items at their offsets, one constructor per reply', () => {
  const demo = scriptProtocol({
    label: 'demo',
    keys: ['shared'],
    args: ['now'],
    item: { keys: ['own'], args: ['id', 'amount'] },
    replies: { done: { code: 7, fields: { count: 'number' } } },
    lua: 'return {}',
  });
  expect(demo.bindings()).toContain("local K = setmetatable({shared = KEYS[1]}, undeclared('key'))");
  expect(demo.bindings()).toContain('local ITEMS = (#ARGV - 1) / 2');
  expect(demo.bindings()).toContain('setmetatable({own = KEYS[k + 1]}, K_OF), setmetatable({id = ARGV[a + 1], amount = ARGV[a + 2]}, A_OF)');
  expect(demo.bindings()).toContain('done = function(r) return {7, r.count} end');
});

it('refuses a declaration Lua could not bind', () => {
  const replies = { done: { code: 1, fields: {} } };
  expect(() => scriptProtocol({ label: 'Bad', keys: [], args: [], replies, lua: '' })).toThrow('script label "Bad" must be lower snake case');
  expect(() => scriptProtocol({ label: 'bad', keys: ['not-a-name'], args: [], replies, lua: '' })).toThrow('field not-a-name is not a Lua identifier');
  expect(() => scriptProtocol({ label: 'bad', keys: [], args: [], replies: { a: { code: 1, fields: {} }, b: { code: 1, fields: {} } }, lua: '' })).toThrow('reply code 1 declared twice');
});

it('the README documents every script by its declared fields and replies', async () => {
  expect(await readmeTable(), 'run `pnpm --filter @pgw/backend-redis protocols:doc` to rewrite it').toBe(protocolTable(PROTOCOLS));
});

it('sends what items share once per set, each item naming its set, and reads it back per item', async () => {
  const redis = pool.open();
  const demo = scriptProtocol({
    label: 'demo_shared',
    keys: ['book'],
    args: ['now'],
    item: { keys: [], args: ['id'], shared: { keys: ['own'], args: ['limit'] } },
    replies: { seen: { code: 1, fields: { id: 'string', own: 'string', limit: 'number', book: 'string' } } },
    lua: `
local replies = {}
for i = 1, ITEMS do
  local K, A = item(i)
  replies[i] = REPLY.seen{id = A.id, own = K.own, limit = A.limit, book = K.book}
end
return replies`,
  });
  const a = { keys: { own: 'ka' }, args: { limit: 1 } };
  const b = { keys: { own: 'kb' }, args: { limit: 2 } };
  const items = [a, b, a].map((shared, i) => ({ keys: {}, shared, args: { id: `i${i}` } }));
  expect(demo.encode({ keys: { book: 'k0' }, args: { now: '' } }, items)).toEqual({ keys: ['k0', 'ka', 'kb'], args: ['', 2, 1, 2, 1, 'i0', 2, 'i1', 1, 'i2'] });
  expect(await demo.runItems(redis, { keys: { book: 'pgw:{demo}:0' }, args: { now: '' } }, items, 2000)).toEqual([
    { kind: 'seen', id: 'i0', own: 'ka', limit: 1, book: 'pgw:{demo}:0' },
    { kind: 'seen', id: 'i1', own: 'kb', limit: 2, book: 'pgw:{demo}:0' },
    { kind: 'seen', id: 'i2', own: 'ka', limit: 1, book: 'pgw:{demo}:0' },
  ]);
});
