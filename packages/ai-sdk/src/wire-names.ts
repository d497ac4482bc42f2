/**
 * The AI SDK's names for the OpenAI wire's: the sampling settings and the finish reasons. Each
 * mapping is one table of `[AI SDK name, wire name]` pairs that both directions read, so a name
 * added to one direction cannot be missing from the other.
 */
import type { LanguageModelV3CallOptions, LanguageModelV3FinishReason } from '@ai-sdk/provider';

/** One table read both ways. */
export interface TwoWay<A extends string, W extends string> {
  /** Each AI SDK name with the one wire name it is sent as, in table order. */
  readonly toWire: ReadonlyArray<readonly [A, W]>;
  /** Each wire name with the AI SDK name it is read as, in table order. */
  readonly fromWire: ReadonlyArray<readonly [W, A]>;
  wireName(name: string): W | undefined;
  aiSdkName(name: string): A | undefined;
}

/**
 * Reads a table both ways. A wire name must appear once (reading the wire is a function); an AI SDK
 * name listed with several wire names needs its entry in `preferred`, the one it is sent as.
 * An ambiguous table throws when the module loads, not when a call meets the name.
 */
export function twoWay<A extends string, W extends string>(pairs: ReadonlyArray<readonly [A, W]>, preferred: Partial<Record<A, W>> = {}): TwoWay<A, W> {
  const fromWire = new Map<string, A>();
  const wireNames = new Map<A, W[]>();
  for (const [aiSdk, wire] of pairs) {
    if (fromWire.has(wire)) throw new Error(`twoWay: the wire name ${wire} is listed twice`);
    fromWire.set(wire, aiSdk);
    wireNames.set(aiSdk, [...(wireNames.get(aiSdk) ?? []), wire]);
  }
  const toWire: Array<readonly [A, W]> = [];
  for (const [aiSdk, wires] of wireNames) {
    const choice = preferred[aiSdk];
    if (wires.length > 1 && choice === undefined) throw new Error(`twoWay: ${aiSdk} has the wire names ${wires.join(', ')} and no preferred one`);
    if (choice !== undefined && (wires.length === 1 || !wires.includes(choice))) throw new Error(`twoWay: the preferred wire name ${choice} of ${aiSdk} is not one of several in the table`);
    toWire.push([aiSdk, choice ?? wires[0]!]);
  }
  const toWireByName = new Map<string, W>(toWire);
  return {
    toWire,
    fromWire: pairs.map(([aiSdk, wire]) => [wire, aiSdk] as const),
    wireName: (name) => toWireByName.get(name),
    aiSdkName: (name) => fromWire.get(name),
  };
}

/**
 * Sampling settings. `max_completion_tokens` is OpenAI's newer name for `max_tokens`; a request
 * carrying both means the newer one, so it is listed after it (reading in table order, it wins).
 */
export const SAMPLING_KEYS = twoWay(
  [
    ['maxOutputTokens', 'max_tokens'],
    ['maxOutputTokens', 'max_completion_tokens'],
    ['temperature', 'temperature'],
    ['topP', 'top_p'],
    ['topK', 'top_k'],
    ['stopSequences', 'stop'],
    ['seed', 'seed'],
    ['presencePenalty', 'presence_penalty'],
    ['frequencyPenalty', 'frequency_penalty'],
  ] as const satisfies ReadonlyArray<readonly [keyof LanguageModelV3CallOptions, string]>,
  // Every OpenAI-compatible server takes `max_tokens`; not all know `max_completion_tokens`.
  { maxOutputTokens: 'max_tokens' },
);

/** Finish reasons. The wire's reasons missing here are `other` in the AI SDK's terms. */
export const FINISH_REASONS = twoWay(
  [
    ['stop', 'stop'],
    ['length', 'length'],
    ['tool-calls', 'tool_calls'],
    ['tool-calls', 'function_call'],
    ['content-filter', 'content_filter'],
  ] as const satisfies ReadonlyArray<readonly [LanguageModelV3FinishReason['unified'], string]>,
  // `function_call` is the deprecated reason of the legacy functions API; answers name `tool_calls`.
  { 'tool-calls': 'tool_calls' },
);
