/**
 * Reasoning effort (docs/architecture.md#thinking-profiles): how a provider profile puts an effort on the wire, which raw body
 * keys it manages, and whether a call actually reasoned.
 */
import { EFFORTS, type Effort, type ThinkingObservation } from './types.js';

/** Efforts from least to most reasoning. */
export const EFFORT_ORDER: readonly Effort[] = EFFORTS;

/** Validates an effort name (case-insensitive); throws RangeError naming `origin` for anything else. */
export function coerceEffort(value: unknown, origin = 'reasoningEffort'): Effort {
  const name = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
  const effort = EFFORT_ORDER.find((e) => e === name);
  if (effort !== undefined) return effort;
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  throw new RangeError(`${origin} must be one of ${EFFORT_ORDER.join(', ')}, got ${shown}`);
}

export interface ProviderProfile {
  name: string;
  /** Raw body keys this profile manages; a caller's `sampling` may not set them. */
  managedKeys: readonly string[];
  /** Puts the effort on the wire (mutates the request body). Undefined effort = provider default. */
  applyEffort(body: Record<string, unknown>, effort: Effort | undefined): void;
  /** Whether native `response_format: json_schema` is supported. */
  supportsJsonSchema: boolean;
}

/**
 * Token budgets of the budget-style profiles; `max` of Qwen omits the budget (the model's maximum).
 * `minimal` is Anthropic's smallest budget, so both profiles share one table.
 */
const BUDGET_TOKENS: Readonly<Record<Exclude<Effort, 'none'>, number>> = {
  minimal: 1024,
  low: 1024,
  medium: 4096,
  high: 16384,
  xhigh: 24576,
  max: 32768,
};

/**
 * A source's remapping of efforts, for servers whose models accept fewer levels: the effort a call
 * asks for → the effort the profile puts on the wire. Efforts it does not name go as asked.
 */
export type EffortMap = Readonly<Partial<Record<Effort, Effort>>>;

/** The effort to send for `effort` under `map`. */
export function mapEffort(map: EffortMap, effort: Effort | undefined): Effort | undefined {
  return effort === undefined ? undefined : (map[effort] ?? effort);
}

/** Validates an effort map given as an object (`{ max: 'high' }`); RangeError / TypeError naming `origin`. */
export function checkEffortMap(value: unknown, origin: string): EffortMap {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`${origin} must be an object of effort → effort, e.g. { max: 'high' }`);
  }
  return Object.freeze(Object.fromEntries(Object.entries(value).map(([from, to]) => [coerceEffort(from, origin), coerceEffort(to, origin)])));
}

/** Parses an effort map written `from:to,from:to` (an env value, e.g. `xhigh:high,max:high`); RangeError naming `origin`. */
export function parseEffortMap(text: string, origin: string): EffortMap {
  const map: Partial<Record<Effort, Effort>> = {};
  for (const pair of text.split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    const parts = pair.split(':');
    if (parts.length !== 2) throw new RangeError(`${origin}: '${pair}' is not level:level (e.g. max:high)`);
    const from = coerceEffort(parts[0], origin);
    if (map[from] !== undefined) throw new RangeError(`${origin} maps '${from}' twice`);
    map[from] = coerceEffort(parts[1], origin);
  }
  return Object.freeze(map);
}

const BUILT_IN_PROFILES: readonly ProviderProfile[] = [
  {
    // Every level goes as it is named (a source whose models accept fewer maps them with an
    // EffortMap). `none` sends nothing: it exists only on some OpenAI models and a 400 would fail
    // the call; the provider default then applies and a contradiction is warned about.
    name: 'openai',
    managedKeys: ['reasoning_effort'],
    applyEffort(body, effort) {
      if (effort !== undefined && effort !== 'none') body.reasoning_effort = effort;
    },
    supportsJsonSchema: true,
  },
  {
    name: 'qwen',
    managedKeys: ['enable_thinking', 'thinking_budget'],
    applyEffort(body, effort) {
      if (effort === undefined) return;
      body.enable_thinking = effort !== 'none';
      if (effort !== 'none' && effort !== 'max') body.thinking_budget = BUDGET_TOKENS[effort];
    },
    supportsJsonSchema: false,
  },
  {
    // The caller's max_tokens must exceed budget_tokens (an Anthropic rule, not checked here).
    name: 'anthropic_compat',
    managedKeys: ['thinking'],
    applyEffort(body, effort) {
      if (effort === undefined) return;
      body.thinking =
        effort === 'none' ? { type: 'disabled' } : { type: 'enabled', budget_tokens: BUDGET_TOKENS[effort] };
    },
    supportsJsonSchema: false,
  },
  {
    // Whether DeepSeek reasons is chosen by the model (deepseek-chat vs deepseek-reasoner), not by
    // a body key: the effort is recorded and observed, never sent.
    name: 'deepseek',
    managedKeys: [],
    applyEffort() {},
    supportsJsonSchema: false,
  },
];

/**
 * The built-in profiles by name. Read-only: a custom profile is passed to a provider factory
 * (`openaiCompatible({ profile })`), never registered globally, so two sources of one process can
 * use different profiles without affecting each other.
 */
export const PROVIDER_PROFILES: Readonly<Record<string, ProviderProfile>> = Object.freeze(
  Object.fromEntries(BUILT_IN_PROFILES.map((p) => [p.name, Object.freeze(p)])),
);

/** A built-in profile by name (case-insensitive); RangeError naming `origin` and the known names for anything else. */
export function providerProfile(name: string, origin = 'provider'): ProviderProfile {
  const profile = Object.hasOwn(PROVIDER_PROFILES, name.trim().toLowerCase()) ? PROVIDER_PROFILES[name.trim().toLowerCase()] : undefined;
  if (profile !== undefined) return profile;
  throw new RangeError(`${origin}: unknown provider profile '${name}'; known: ${Object.keys(PROVIDER_PROFILES).sort().join(', ')}`);
}

/** Throws RangeError naming `origin` and the key when `sampling` sets a key `owner` manages. */
export function assertNoManagedKeys(
  managedKeys: readonly string[],
  sampling: Record<string, unknown>,
  origin: string,
  owner: string,
): void {
  const key = managedKeys.find((k) => Object.hasOwn(sampling, k));
  if (key !== undefined) {
    throw new RangeError(`${origin} may not set '${key}': it is managed by ${owner} (use reasoningEffort)`);
  }
}

export interface ThinkingSignals {
  reasoningText?: string;
  reasoningTokens?: number;
}

/**
 * Reasoning text outranks usage details: non-blank text → observed; else reasoning tokens > 0 →
 * observed, exactly 0 → absent; nothing known → `unknown` (cannot tell, not "did not reason").
 * Blank text proves nothing: some models emit an empty think block with thinking disabled.
 */
export function observeThinking(signals: ThinkingSignals): ThinkingObservation {
  if (signals.reasoningText !== undefined && signals.reasoningText.trim() !== '') return 'observed';
  const tokens = signals.reasoningTokens;
  if (tokens === undefined || !Number.isFinite(tokens)) return 'unknown';
  return tokens > 0 ? 'observed' : tokens === 0 ? 'absent' : 'unknown';
}

/** Warns once per (source, model, effective effort) when the requested effort and the observation contradict. */
export class ThinkingContradictions {
  private readonly warned = new Set<string>();

  constructor(private readonly warn: (message: string) => void) {}

  check(source: string, model: string, effort: Effort | undefined, observation: ThinkingObservation): void {
    if (effort === undefined || observation === 'unknown') return;
    // `minimal` may spend no reasoning at all: only `none` observed and ≥ `low` absent contradict.
    const contradicts = effort === 'none' ? observation === 'observed' : effort !== 'minimal' && observation === 'absent';
    if (!contradicts) return;
    const key = JSON.stringify([source, model, effort]);
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.warn(
      `thinking_contradiction: source ${source} model ${model} was asked for effort '${effort}' ` +
        `but reasoning was ${observation}`,
    );
  }
}
