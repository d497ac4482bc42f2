/** `PGW_MCP__SERVERS` and the per-server keys: read inline or from a file, refused naming the key, the server and the field, never a value. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SettingsError } from '@pgw/client';
import { describe, expect, it } from 'vitest';
import { readMcpSettings } from '../src/mcp/settings.js';
import { mayUseServer, mayUseTool, splitName } from '../src/mcp/names.js';
import { readApiKeys } from '../src/door/api-keys.js';
import { callerOf } from '../src/door/caller.js';

const refusal = (env: Record<string, string>) => {
  try {
    readMcpSettings(env);
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return error as SettingsError;
  }
  return expect.fail('the settings were accepted');
};
const servers = (table: unknown) => ({ PGW_MCP__SERVERS: JSON.stringify(table) });

describe('PGW_MCP__SERVERS', () => {
  it('reads a stdio and an HTTP server with their limits, inline or from a file', () => {
    const table = { fs: { command: 'node', args: ['server.js'], env: { ROOT: '/tmp' }, tools: { read_file: { rpm: 10, maxConcurrency: 2 } }, idempotent: ['stat'] }, gh: { url: 'https://mcp.example.com/mcp', headers: { authorization: 'Bearer x' } } };
    const dir = mkdtempSync(join(tmpdir(), 'pgw-mcp-'));
    writeFileSync(join(dir, 'servers.json'), JSON.stringify(table));
    for (const raw of [JSON.stringify(table), join(dir, 'servers.json')]) {
      const settings = readMcpSettings({ PGW_MCP__SERVERS: raw, PGW_MCP__FS__RPM: '30', PGW_MCP__FS__TIMEOUT_S: '2.5', PGW_MCP__LOG_ARGUMENTS: 'on' });
      const fs = settings.servers.get('fs')!;
      expect(fs).toMatchObject({ rpm: 30, maxConcurrency: 0, timeoutMs: 2500, transport: { kind: 'stdio', command: 'node', args: ['server.js'], env: { ROOT: '/tmp' } } });
      expect([...fs.tools]).toEqual([['read_file', { rpm: 10, maxConcurrency: 2, idempotent: false }], ['stat', { rpm: 0, maxConcurrency: 0, idempotent: true }]]);
      expect(settings.servers.get('gh')).toMatchObject({ timeoutMs: 60_000, transport: { kind: 'http', headers: { authorization: 'Bearer x' } } });
      expect(settings.logArguments).toBe(true);
    }
  });

  it('reads how long an idle session lives and how many are held, with their defaults', () => {
    const table = servers({ fs: { command: 'node' } });
    expect(readMcpSettings(table)).toMatchObject({ sessionIdleMs: 1_800_000, maxSessions: 1000 });
    expect(readMcpSettings({ ...table, PGW_MCP__SESSION_IDLE_S: '90', PGW_MCP__MAX_SESSIONS: '20' })).toMatchObject({ sessionIdleMs: 90_000, maxSessions: 20 });
    expect(readMcpSettings({ ...table, PGW_MCP__MAX_SESSIONS: '0' }).maxSessions).toBe(Number.POSITIVE_INFINITY);
  });

  it('refuses a bad entry naming the server and the field, never a header or env value', () => {
    const secret = 'Bearer sk-very-secret\n';
    const headers = refusal(servers({ gh: { url: 'https://x.example/mcp', headers: { authorization: secret } } }));
    expect(headers.key).toBe('PGW_MCP__SERVERS');
    expect(headers.message).toMatch(/server "gh" "headers"/);
    expect(headers.message).not.toMatch(/sk-very-secret/);
    expect(refusal(servers({ fs: { command: 'node', url: 'https://x.example' } })).message).toMatch(/server "fs" must be either/);
    expect(refusal(servers({ fs: { command: 'node', extra: 1 } })).message).toMatch(/server "fs" may hold only command, args, env, tools, idempotent/);
    expect(refusal(servers({ fs: { url: 'ftp://x.example' } })).message).toMatch(/"url" must be an http or https URL/);
    expect(refusal(servers({ fs: { command: 'node', tools: { read: { rpm: -1 } } } })).message).toMatch(/"tools"/);
  });

  it('refuses a server name that could not be told apart in a tool name or an env key', () => {
    for (const name of ['a__b', 'GitHub', 'tenant', 'breaker', '9fs', 'x'.repeat(33)]) expect(refusal(servers({ [name]: { command: 'node' } })).message).toMatch(/must be named by lower-case letters/);
  });

  it('refuses a bad per-server key by its name', () => {
    const table = servers({ fs: { command: 'node' } });
    expect(refusal({ ...table, PGW_MCP__FS__RPM: '1.5' }).key).toBe('PGW_MCP__FS__RPM');
    expect(refusal({ ...table, PGW_MCP__FS__TIMEOUT_S: '0' }).key).toBe('PGW_MCP__FS__TIMEOUT_S');
    expect(refusal({ ...table, PGW_MCP__LOG_ARGUMENTS: 'yes' }).key).toBe('PGW_MCP__LOG_ARGUMENTS');
    expect(refusal({ ...table, PGW_MCP__SESSION_IDLE_S: '-5' }).key).toBe('PGW_MCP__SESSION_IDLE_S');
    expect(refusal({ ...table, PGW_MCP__MAX_SESSIONS: 'many' }).key).toBe('PGW_MCP__MAX_SESSIONS');
    expect(refusal({ PGW_MCP__SERVERS: '/no/such/file' }).message).toMatch(/neither a JSON object nor the path of a readable file/);
  });
});

describe('names and grants', () => {
  it('splits <server>__<tool> at the first separator, keeping the tool name whole', () => {
    expect(splitName('fs__read__file')).toEqual({ server: 'fs', name: 'read__file' });
    expect(splitName('fs__')).toBeUndefined();
    expect(splitName('__x')).toBeUndefined();
    expect(splitName('plain')).toBeUndefined();
  });

  it('grants a whole server or one tool; no list (a keyless server) grants all', () => {
    const grant = { mcp: new Set(['gh', 'fs__read_file']) };
    expect([mayUseTool(grant, 'gh', 'anything'), mayUseTool(grant, 'fs', 'read_file'), mayUseTool(grant, 'fs', 'write_file')]).toEqual([true, true, false]);
    expect([mayUseServer(grant, 'fs'), mayUseServer(grant, 'db'), mayUseServer({}, 'db'), mayUseServer({ mcp: new Set() }, 'db')]).toEqual([true, false, true, false]);
  });
});

describe('a key\'s mcp list', () => {
  it('becomes its grant; a key without one is granted nothing, a keyless server everything', () => {
    const { keys } = readApiKeys(JSON.stringify({ 'sk-mcp-key-1': { tenant: 'a', mcp: ['gh', 'fs__read_file'] }, 'sk-mcp-key-2': 'b' }));
    expect([...callerOf(keys.get('sk-mcp-key-1'), undefined).mcp!]).toEqual(['gh', 'fs__read_file']);
    expect(callerOf(keys.get('sk-mcp-key-2'), undefined).mcp!.size).toBe(0);
    expect(callerOf(undefined, undefined).mcp).toBeUndefined();
  });

  it('is refused naming the field and the key\'s position, not the key', () => {
    expect(() => readApiKeys(JSON.stringify({ 'sk-mcp-key-1': { tenant: 'a', mcp: 'gh' } }))).toThrow(/key #1 "mcp" must be a list/);
  });
});
