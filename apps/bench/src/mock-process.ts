/** The parent's handle on the mock upstream child process. */
import type { Counters } from '@pgw/mock-upstream';
import { ChildChannel } from './child.js';

export class MockProcess {
  private constructor(
    private readonly channel: ChildChannel,
    /** `http://127.0.0.1:PORT` */
    readonly url: string,
  ) {}

  static async start(): Promise<MockProcess> {
    const channel = new ChildChannel(new URL('./mock-child.ts', import.meta.url));
    try {
      const { url } = await channel.request<{ url: string }>('url');
      return new MockProcess(channel, url);
    } catch (error) {
      await channel.stop();
      throw error;
    }
  }

  get pid(): number | undefined {
    return this.channel.pid;
  }

  /** An OpenAI-compatible base URL of one mock source. */
  baseUrl(source: string): string {
    return `${this.url}/${source}/v1`;
  }

  /** Clears counters and the mock's request recordings (they grow with every call). */
  async reset(): Promise<void> {
    await this.channel.request('reset');
  }

  async counters(source: string): Promise<Counters> {
    return (await this.channel.request<{ counters: Counters }>('counters', { source })).counters;
  }

  async close(): Promise<void> {
    await this.channel.stop();
  }
}
