/**
 * What an item may cost at worst, from its sources' prices, as the governor's budget reserves it:
 * the prompt's estimated tokens at the input price plus the most it may answer at the output price,
 * at the dearest source of its scope (any of them may serve it).
 */
import { findModelPrice, worstCaseCostUsd } from '@pgw/core/internal';
import type { GatewaySettings } from '@pgw/client';
import type { BatchItem } from '@pgw/core';
import { EMBEDDINGS_URL, isChatUrl } from './input.js';
import { estimatedPromptTokens, maxOutputTokens, type BatchClients } from './item-call.js';

export interface ItemEstimate {
  promptTokens: number;
  maxOutputTokens: number;
  /** Undefined when a source of the item's scope has no price (an OCR item costs nothing). */
  worstCaseUsd: number | undefined;
}

const settingsOf = (clients: BatchClients, item: BatchItem): GatewaySettings | undefined => {
  const model = String(item.body['model']);
  const client = isChatUrl(item.url) ? clients.chat : item.url === EMBEDDINGS_URL ? clients.embeddings : undefined;
  return (typeof client === 'function' ? client(model) : client)?.settings;
};

export function estimateItem(clients: BatchClients, item: BatchItem): ItemEstimate {
  const promptTokens = estimatedPromptTokens(item);
  const settings = settingsOf(clients, item);
  if (settings === undefined) return { promptTokens, maxOutputTokens: 0, worstCaseUsd: 0 };
  let worst = 0;
  let output = 0;
  for (const source of settings.sources) {
    const price = source.price ?? findModelPrice(source.model);
    const cap = maxOutputTokens(item, source.estTokens);
    output = Math.max(output, cap);
    if (price === undefined) return { promptTokens, maxOutputTokens: output, worstCaseUsd: undefined };
    worst = Math.max(worst, worstCaseCostUsd(price, promptTokens, cap));
  }
  return { promptTokens, maxOutputTokens: output, worstCaseUsd: worst };
}

export interface JobEstimate {
  items: number;
  promptTokens: number;
  maxOutputTokens: number;
  /** Undefined when some item's scope has an unpriced source. */
  worstCaseUsd: number | undefined;
}

/** The dry run's figures: item count, estimated tokens, worst-case cost. */
export function estimateJob(clients: BatchClients, items: readonly BatchItem[]): JobEstimate {
  const total: JobEstimate = { items: items.length, promptTokens: 0, maxOutputTokens: 0, worstCaseUsd: 0 };
  for (const item of items) {
    const estimate = estimateItem(clients, item);
    total.promptTokens += estimate.promptTokens;
    total.maxOutputTokens += estimate.maxOutputTokens;
    total.worstCaseUsd = total.worstCaseUsd === undefined || estimate.worstCaseUsd === undefined ? undefined : total.worstCaseUsd + estimate.worstCaseUsd;
  }
  return total;
}
