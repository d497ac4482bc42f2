import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { LineBatch } from '../src/operations/access-log.js';
import { startHarness } from './helpers.js';

describe('the access log line', () => {
  it('is the JSON of its fields in their order, whatever a key’s tenant or a client’s request id holds', async () => {
    const tenant = 'a"b\\c\nd\u2028ü\u0001';
    const lines: string[] = [];
    const h = await startHarness(undefined, { PGW_SERVER__KEYS: JSON.stringify({ 'sk-hostile-000001': tenant }) }, [], { log: (line) => lines.push(line) });
    try {
      const answer = await fetch(`${h.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk-hostile-000001', 'content-type': 'application/json', 'x-request-id': 'id"with\\odd' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
      await answer.text();
      await fetch(`${h.url}/nowhere`).then((response) => response.text());
    } finally {
      await h.close();
    }
    const entries = lines.flatMap((batch) => batch.split('\n')).filter((line) => line.includes('"requestId"'));
    expect(entries).toHaveLength(2);
    for (const line of entries) expect(JSON.stringify(JSON.parse(line))).toBe(line);
    const [called, unknown] = entries.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(Object.keys(called!)).toEqual(['time', 'requestId', 'method', 'route', 'status', 'durationMs', 'tenant', 'callId']);
    expect(called).toMatchObject({ requestId: 'id"with\\odd', method: 'POST', route: '/v1/chat/completions', status: 200, tenant, callId: expect.any(String) });
    expect(new Date(called!['time'] as string).toISOString()).toBe(called!['time']);
    expect(unknown).toMatchObject({ method: 'GET', route: null, status: 404, tenant: null, callId: null });
  });
});

describe('LineBatch', () => {
  it('writes the lines of one turn in one write, in their order, and the next turn’s in the next', async () => {
    const writes: string[] = [];
    const batch = new LineBatch((text) => writes.push(text));
    batch.line('{"a":1}');
    batch.line('{"b":2}');
    expect(writes).toEqual([]);
    await turn();
    batch.line('{"c":3}');
    await turn();
    expect(writes).toEqual(['{"a":1}\n{"b":2}\n', '{"c":3}\n']);
  });

  it('writes what is gathered at once when flushed (the process exits), and nothing twice', async () => {
    const writes: string[] = [];
    const batch = new LineBatch((text) => writes.push(text));
    batch.line('last words');
    batch.flush();
    expect(writes).toEqual(['last words\n']);
    await turn();
    batch.flush();
    expect(writes).toEqual(['last words\n']);
  });
});
