/** The prompt-cache rows of a report: per source or tenant, the cached share of prompt tokens and what it saved. */
import type { PromptCacheUse } from '@pgw/core';
import { formatCount, formatUsd } from './format.js';

export const PROMPT_CACHE_HEADERS = ['prompt tokens', 'cached', 'cached share', 'cache writes', 'saving'] as const;

/** Rows `[key, prompt tokens, cached tokens, cached share, cache-written tokens, saving]`, largest saving first; keys without prompt tokens are left out. */
export function promptCacheRows(uses: Readonly<Record<string, PromptCacheUse>>): string[][] {
  return Object.entries(uses)
    .filter(([, use]) => use.promptTokens > 0)
    .sort(([a, x], [b, y]) => y.savingUsd - x.savingUsd || a.localeCompare(b))
    .map(([key, use]) => [
      key,
      formatCount(use.promptTokens),
      formatCount(use.cachedPromptTokens),
      formatShare(use.cachedPromptTokens / use.promptTokens),
      formatCount(use.cacheWritePromptTokens),
      formatUsd(use.savingUsd),
    ]);
}

function formatShare(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}
