/** `pgw chat`: one governed chat call; the answer on stdout, its call stats on stderr (or everything as JSON). */
import { text } from 'node:stream/consumers';
import { GatewayClient } from '@pgw/client';
import type { LLMResponse } from '@pgw/client';
import type { Effort } from '@pgw/core';
import { defuseControls } from '../defuse-controls.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { withEnvSource, type MockableFlags } from '../local-mock.js';
import { displayUsd, formatMs, formatUsd } from '../report/format.js';
import { warnOnStderr } from '../warn.js';

export interface ChatFlags extends MockableFlags {
  effort?: Effort;
  json?: boolean;
}

/** `prompt` is the message text, or `-` to read it from stdin. */
export async function runChat(prompt: string, flags: ChatFlags, signal: AbortSignal): Promise<ExitCode> {
  const content = prompt === '-' ? await text(process.stdin) : prompt;
  return withEnvSource(flags, 'gpt-4o-mini', async (envSource) => {
    const client = await GatewayClient.fromEnv(flags.scope, { ...envSource, warn: warnOnStderr });
    try {
      const effort = flags.effort && { reasoningEffort: flags.effort };
      const response = await client.chat([{ role: 'user', content }], { signal, ...effort });
      if (flags.json) {
        process.stdout.write(`${JSON.stringify(forDisplay(response), null, 2)}\n`);
      } else {
        process.stdout.write(response.content.endsWith('\n') ? response.content : `${response.content}\n`);
        process.stderr.write(`${callStatsLine(response)}\n`);
      }
      return EXIT.ok;
    } finally {
      await client.close();
    }
  });
}

/** The response as printed: the cost without its floating-point noise (the library keeps it exact). */
function forDisplay(response: LLMResponse): LLMResponse {
  return response.costUsd === undefined ? response : { ...response, costUsd: displayUsd(response.costUsd) };
}

/** `source alpha (model m) · attempts 1 · 123 ms · tokens 10 in / 5 out (measured) · cost $0.0001` */
export function callStatsLine(response: LLMResponse): string {
  const { usage, callStats } = response;
  const tried = callStats.sourcesTried.length > 1 ? ` (tried ${callStats.sourcesTried.join(', ')})` : '';
  const reasoning = usage.reasoningTokens ? `, ${usage.reasoningTokens} reasoning` : '';
  const parts = [
    `source ${response.source} (model ${response.model})${response.cached ? ' from cache' : ''}`,
    `attempts ${callStats.attempts}${tried}`,
    `latency ${formatMs(callStats.totalLatencyMs)}`,
    `tokens ${usage.promptTokens} in / ${usage.completionTokens} out${reasoning} (${usage.usageSource})`,
    `cost ${response.costUsd === undefined ? 'unknown' : formatUsd(response.costUsd)}`,
  ];
  return defuseControls(parts.join(' · '));
}
