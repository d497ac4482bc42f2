import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startChildServer } from '../src/index.js';

const fixture = (name: string) => new URL(`./fixtures/${name}.mjs`, import.meta.url).pathname;

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('startChildServer', () => {
  it('pins a server that listens on every interface to 127.0.0.1 and reports its port', async () => {
    const server = await startChildServer({ name: 'fixture', entry: fixture('any-interface-server') });
    try {
      expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
      const res = await request(server.url);
      expect(JSON.parse(await res.body.text())).toMatchObject({ address: '127.0.0.1', port: server.port });
    } finally {
      await server.stop();
    }
    expect(isRunning(server.pid)).toBe(false);
  });

  it('rejects with the server output when it exits before listening', async () => {
    await expect(startChildServer({ name: 'early-exit', entry: fixture('exits-early') })).rejects.toThrow(
      /early-exit did not start: exited before listening \(code 3[\s\S]*missing setting/,
    );
  });

  it('gives up after readyTimeoutMs and kills the server', async () => {
    const start = startChildServer({ name: 'slowpoke', entry: fixture('never-listens') }, { readyTimeoutMs: 3_000 });
    await expect(start).rejects.toThrow(/slowpoke did not start: no listening socket after 3000 ms[\s\S]*warming up/);
  });

  it('stop() escalates to SIGKILL when SIGTERM is ignored, and is idempotent', async () => {
    const server = await startChildServer({ name: 'stubborn', entry: fixture('ignores-sigterm') }, { stopTimeoutMs: 300 });
    await Promise.all([server.stop(), server.stop()]);
    expect(isRunning(server.pid)).toBe(false);
    expect(server.output()).toContain('ignoring SIGTERM');
  });

  it('passes only PATH and the launch env, so no proxy or Redis setting of the test run leaks in', async () => {
    process.env['HTTP_PROXY'] = 'http://127.0.0.1:9';
    try {
      const server = await startChildServer({ name: 'env', entry: fixture('any-interface-server'), env: { EXTRA: '1' } });
      try {
        const answer = JSON.parse(await (await request(server.url)).body.text());
        expect(answer.env.filter((name: string) => !name.startsWith('NODE_CHANNEL_'))).toEqual(['EXTRA', 'PATH']);
      } finally {
        await server.stop();
      }
    } finally {
      delete process.env['HTTP_PROXY'];
    }
  });
});
