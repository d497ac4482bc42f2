/**
 * The zero-logic upstream (plain/zero-upstream.mjs) in a child process under plain node: fixed
 * bytes per route, no request parsing, so the contenders' overhead is not hidden by the server's.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { EXPECTED_CHAT_ANSWER, STREAM_TOKENS } from './mock-script.js';

export const ZERO_ROUTES = { chat: 'chat', packet: 'packet', burst: 'burst', embed: 'embed', hang: 'hang', slow: 'slow', second: 'second', spread: 'spread' } as const;
export type ZeroRoute = (typeof ZERO_ROUTES)[keyof typeof ZERO_ROUTES];

export class ZeroUpstream {
  private constructor(
    private readonly child: ChildProcess,
    /** `http://127.0.0.1:PORT` */
    readonly url: string,
  ) {}

  static async start(): Promise<ZeroUpstream> {
    const child = fork(new URL('../plain/zero-upstream.mjs', import.meta.url), [], {
      execArgv: [],
      env: { ...process.env, ZERO_CHAT_ANSWER: EXPECTED_CHAT_ANSWER, ZERO_STREAM_TOKENS: String(STREAM_TOKENS) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const [message] = (await once(child, 'message')) as [{ url: string }];
    return new ZeroUpstream(child, message.url);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** An OpenAI-compatible base URL of one route. */
  baseUrl(route: ZeroRoute): string {
    return `${this.url}/${route}/v1`;
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.disconnect();
    await exited;
  }
}
