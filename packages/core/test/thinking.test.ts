import { describe, expect, it } from 'vitest';
import {
  assertNoManagedKeys,
  checkEffortMap,
  coerceEffort,
  mapEffort,
  parseEffortMap,
  EFFORT_ORDER,
  PROVIDER_PROFILES,
  providerProfile,
  observeThinking,
  ThinkingContradictions,
  type ProviderProfile,
} from '../src/thinking.js';
import type { Effort } from '../src/types.js';

function wire(provider: string, effort: Effort | undefined): Record<string, unknown> {
  const body: Record<string, unknown> = { model: 'm' };
  providerProfile(provider).applyEffort(body, effort);
  delete body.model;
  return body;
}

describe('efforts', () => {
  it('are ordered from none to max', () => {
    expect(EFFORT_ORDER).toEqual(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']);
  });

  it.each([
    ['low', 'low'],
    ['HIGH', 'high'],
    [' Max ', 'max'],
    ['none', 'none'],
    ['minimal', 'minimal'],
    ['XHigh', 'xhigh'],
  ])('coerces %j to %s', (value, effort) => {
    expect(coerceEffort(value, 'chat(reasoningEffort)')).toBe(effort);
  });

  it.each(['extreme', 'x-high', '', 3, true, null, undefined, { effort: 'low' }])(
    'refuses %j naming the origin and the allowed values',
    (value) => {
      expect(() => coerceEffort(value, 'chat(reasoningEffort)')).toThrow(RangeError);
      expect(() => coerceEffort(value, 'chat(reasoningEffort)')).toThrow(
        /^chat\(reasoningEffort\) must be one of none, minimal, low, medium, high, xhigh, max/,
      );
    },
  );
});

describe('built-in provider profiles', () => {
  it.each([
    [undefined, {}],
    ['none', {}],
    ['minimal', { reasoning_effort: 'minimal' }],
    ['low', { reasoning_effort: 'low' }],
    ['medium', { reasoning_effort: 'medium' }],
    ['high', { reasoning_effort: 'high' }],
    ['xhigh', { reasoning_effort: 'xhigh' }],
    ['max', { reasoning_effort: 'max' }],
  ] as const)('openai puts %s on the wire as %j', (effort, body) => {
    expect(wire('openai', effort)).toEqual(body);
  });

  it.each([
    [undefined, {}],
    ['none', { enable_thinking: false }],
    ['minimal', { enable_thinking: true, thinking_budget: 1024 }],
    ['low', { enable_thinking: true, thinking_budget: 1024 }],
    ['medium', { enable_thinking: true, thinking_budget: 4096 }],
    ['high', { enable_thinking: true, thinking_budget: 16384 }],
    ['xhigh', { enable_thinking: true, thinking_budget: 24576 }],
    ['max', { enable_thinking: true }],
  ] as const)('qwen puts %s on the wire as %j', (effort, body) => {
    expect(wire('qwen', effort)).toEqual(body);
  });

  it.each([
    [undefined, {}],
    ['none', { thinking: { type: 'disabled' } }],
    ['minimal', { thinking: { type: 'enabled', budget_tokens: 1024 } }],
    ['low', { thinking: { type: 'enabled', budget_tokens: 1024 } }],
    ['xhigh', { thinking: { type: 'enabled', budget_tokens: 24576 } }],
    ['max', { thinking: { type: 'enabled', budget_tokens: 32768 } }],
  ] as const)('anthropic_compat puts %s on the wire as %j', (effort, body) => {
    expect(wire('anthropic_compat', effort)).toEqual(body);
  });

  it.each([undefined, 'none', 'max'] as const)('deepseek sends nothing for %s', (effort) => {
    expect(wire('deepseek', effort)).toEqual({});
  });

  it('declare their managed keys and json_schema support', () => {
    const summary = ['openai', 'qwen', 'anthropic_compat', 'deepseek'].map((name) => {
      const p = providerProfile(name);
      return [p.name, p.managedKeys, p.supportsJsonSchema];
    });
    expect(summary).toEqual([
      ['openai', ['reasoning_effort'], true],
      ['qwen', ['enable_thinking', 'thinking_budget'], false],
      ['anthropic_compat', ['thinking'], false],
      ['deepseek', [], false],
    ]);
  });

  it('every managed key is one the profile actually writes', () => {
    for (const name of ['openai', 'qwen', 'anthropic_compat']) {
      const profile = providerProfile(name);
      const written = new Set(EFFORT_ORDER.flatMap((effort) => Object.keys(wire(name, effort))));
      expect([...written].sort()).toEqual([...profile.managedKeys].sort());
    }
  });
});

describe('effort maps', () => {
  it('parse level:level pairs, case and blanks forgiven, into the levels a source sends instead', () => {
    expect(parseEffortMap(' XHigh:high , max:high,minimal:low ', 'LLM__SOURCE__A__EFFORT_MAP')).toEqual({ xhigh: 'high', max: 'high', minimal: 'low' });
    expect(parseEffortMap('', 'K')).toEqual({});
  });

  it.each([
    ['max', /^K: 'max' is not level:level/],
    ['max:huge', /^K must be one of none, minimal/],
    ['extreme:high', /^K must be one of none, minimal/],
    ['max:high,max:medium', /^K maps 'max' twice/],
  ])('refuse %j naming the key', (text, pattern) => {
    expect(() => parseEffortMap(text, 'K')).toThrow(RangeError);
    expect(() => parseEffortMap(text, 'K')).toThrow(pattern);
  });

  it('check an object map naming the option; the efforts it does not name stay as asked', () => {
    const map = checkEffortMap({ max: 'high', xhigh: 'HIGH' }, 'openaiCompatible(options.effortMap)');
    expect(map).toEqual({ max: 'high', xhigh: 'high' });
    expect(mapEffort(map, 'max')).toBe('high');
    expect(mapEffort(map, 'low')).toBe('low');
    expect(mapEffort(map, undefined)).toBeUndefined();
    expect(() => checkEffortMap({ huge: 'high' }, 'opt')).toThrow(/^opt must be one of none/);
    expect(() => checkEffortMap('max:high', 'opt')).toThrow(/^opt must be an object of effort → effort/);
  });
});

describe('built-in profiles', () => {
  it('looks names up case-insensitively', () => {
    expect(providerProfile('OpenAI').name).toBe('openai');
  });

  it('refuses an unknown name, naming the origin, the name and the known ones', () => {
    expect(() => providerProfile('mistral', 'LLM__SOURCE__A__PROVIDER')).toThrow(RangeError);
    expect(() => providerProfile('mistral', 'LLM__SOURCE__A__PROVIDER')).toThrow(
      /^LLM__SOURCE__A__PROVIDER: .*'mistral'.*anthropic_compat, deepseek, openai, qwen/,
    );
  });

  it('cannot be changed: a custom profile goes to a provider factory instead of a global registry', () => {
    expect(Object.isFrozen(PROVIDER_PROFILES)).toBe(true);
    expect(Object.isFrozen(PROVIDER_PROFILES['openai'])).toBe(true);
    expect(() => {
      (PROVIDER_PROFILES as Record<string, ProviderProfile>)['custom'] = providerProfile('openai');
    }).toThrow(TypeError);
  });

  it('ignores inherited names', () => {
    expect(() => providerProfile('constructor')).toThrow(RangeError);
  });
});

describe('assertNoManagedKeys', () => {
  it('refuses a sampling overlay that sets a managed key, naming origin and key', () => {
    const sampling = { temperature: 0, thinking_budget: 10 };
    expect(() => assertNoManagedKeys(providerProfile('qwen').managedKeys, sampling, 'chat(sampling)', "provider profile 'qwen'")).toThrow(
      /^chat\(sampling\) may not set 'thinking_budget'.*'qwen'/,
    );
  });

  it('lets unmanaged keys through', () => {
    expect(() =>
      assertNoManagedKeys(providerProfile('openai').managedKeys, { temperature: 0.2, max_tokens: 10, thinking: {} }, 'chat(sampling)', 'x'),
    ).not.toThrow();
  });
});

describe('observeThinking', () => {
  it.each([
    [{ reasoningText: 'Let me think' }, 'observed'],
    [{ reasoningText: 'Let me think', reasoningTokens: 0 }, 'observed'],
    [{ reasoningTokens: 12 }, 'observed'],
    [{ reasoningText: '', reasoningTokens: 12 }, 'observed'],
    [{ reasoningTokens: 0 }, 'absent'],
    [{ reasoningText: '\n\n', reasoningTokens: 0 }, 'absent'],
    [{}, 'unknown'],
    [{ reasoningText: '' }, 'unknown'],
    [{ reasoningTokens: Number.NaN }, 'unknown'],
  ] as const)('%j → %s', (signals, observation) => {
    expect(observeThinking(signals)).toBe(observation);
  });
});

describe('ThinkingContradictions', () => {
  function checker(): { contradictions: ThinkingContradictions; warnings: string[] } {
    const warnings: string[] = [];
    return { contradictions: new ThinkingContradictions((m) => warnings.push(m)), warnings };
  }

  it('warns when none was asked but reasoning was observed, once per key', () => {
    const { contradictions, warnings } = checker();
    contradictions.check('a', 'qwen3', 'none', 'observed');
    contradictions.check('a', 'qwen3', 'none', 'observed');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('thinking_contradiction');
    expect(warnings[0]).toContain('qwen3');
  });

  it('warns when an effort ≥ low was asked but reasoning was absent; minimal may reason not at all', () => {
    const { contradictions, warnings } = checker();
    for (const effort of ['minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const) contradictions.check('a', 'm', effort, 'absent');
    expect(warnings).toHaveLength(5);
    expect(warnings.some((w) => w.includes("'minimal'"))).toBe(false);
  });

  it('keeps low and max of one model, and each source and model, separate', () => {
    const { contradictions, warnings } = checker();
    contradictions.check('a', 'm', 'low', 'absent');
    contradictions.check('a', 'm', 'max', 'absent');
    contradictions.check('b', 'm', 'low', 'absent');
    contradictions.check('a', 'n', 'low', 'absent');
    contradictions.check('a', 'm', 'low', 'absent');
    expect(warnings).toHaveLength(4);
  });

  it('never warns on agreement, on unknown, or without a requested effort', () => {
    const { contradictions, warnings } = checker();
    contradictions.check('a', 'm', 'none', 'absent');
    contradictions.check('a', 'm', 'high', 'observed');
    contradictions.check('a', 'm', 'none', 'unknown');
    contradictions.check('a', 'm', 'high', 'unknown');
    contradictions.check('a', 'm', undefined, 'absent');
    expect(warnings).toEqual([]);
  });
});
