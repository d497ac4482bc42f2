// TypeScript consumer, typechecked (not run) with module/moduleResolution nodenext and
// skipLibCheck off: the published declarations must resolve and compile for a strict consumer.
import {
  CallDeadlineExceeded,
  EmbeddingClient,
  GatewayClient,
  GatewayUnavailableError,
  gatherBounded,
  type LLMResponse,
} from '@pgw/client';

export async function ask(question: string): Promise<string> {
  const client: GatewayClient = await GatewayClient.fromEnv('LLM', { env: { LLM__SOURCE__MAIN__BASE_URL: 'http://127.0.0.1:1/v1' } });
  try {
    const answers: LLMResponse[] = await gatherBounded(
      [() => client.chat([{ role: 'user', content: question }], { callDeadlineMs: 30_000 })],
      { concurrency: 1 },
    );
    const first = answers[0];
    return first === undefined ? '' : `${first.content} (${first.callStats.attempts} attempts, ${first.costUsd ?? 0} USD)`;
  } catch (error) {
    if (error instanceof CallDeadlineExceeded) return `deadline of ${error.deadlineMs} ms`;
    if (error instanceof GatewayUnavailableError) return `unavailable: ${error.reason}, retry in ${error.retryAfterMs} ms`;
    throw error;
  } finally {
    await client.close();
  }
}

export async function vectors(texts: string[]): Promise<number> {
  const client = await EmbeddingClient.fromEnv('EMBED');
  try {
    return (await client.embed(texts)).vectors.length;
  } finally {
    await client.close();
  }
}
