import type { AttemptContext, SourceConfig } from '@pgw/core';
import type { MockUpstream } from '@pgw/mock-upstream';

export const API_KEY = 'sk-ocr-secret-7f3a9c';

export const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

/** An OCR source pointing at a mock source's server root. */
export function ocrSource(mock: MockUpstream, name: string, overrides: Partial<SourceConfig> = {}): SourceConfig {
  return {
    name,
    baseUrl: `${mock.url}/${name}`,
    apiKey: API_KEY,
    model: 'monkeyocr',
    provider: 'openai',
    rpm: 0,
    tpm: 0,
    maxConcurrency: 0,
    estTokens: 0,
    timeoutMs: 5000,
    weight: 1,
    extraBody: {},
    ...overrides,
  };
}

export function attemptContext(signal: AbortSignal = new AbortController().signal): AttemptContext {
  return { signal, callId: 'call-1', logicalCallId: 'logical-1' };
}

/** Resolves with what `promise` rejects with; fails the test if it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}
