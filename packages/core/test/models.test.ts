import { describe, expect, it } from 'vitest';
import { assertModel, isModel, MODEL_SPECIFICATION_VERSION } from '../src/models.js';

const chat = {
  specificationVersion: MODEL_SPECIFICATION_VERSION,
  provider: 'mine',
  modelId: 'm-1',
  capabilities: { jsonSchema: false, streaming: false },
  managedKeys: [],
  generate: async () => {
    throw new Error('not called');
  },
};

describe('isModel', () => {
  it('accepts an object of this specification', () => {
    expect(isModel(chat)).toBe(true);
  });

  it.each([
    ['another version', { ...chat, specificationVersion: 'pgw-model-v0' }],
    ['no model id', { ...chat, modelId: undefined }],
    ['no provider', { ...chat, provider: 3 }],
    ['a string', 'gpt-4o'],
    ['null', null],
  ])('refuses %s', (_what, value) => {
    expect(isModel(value)).toBe(false);
  });
});

describe('assertModel', () => {
  it('returns the model when it has the operations asked for', () => {
    expect(assertModel(chat, ['generate'], 'sources[0].model')).toBe(chat);
  });

  it('names the origin when the value is no model', () => {
    expect(() => assertModel('gpt-4o', ['generate'], 'sources[0].model')).toThrow(
      /^sources\[0\]\.model must be a model of specification 'pgw-model-v1'/,
    );
  });

  it('names the missing operations', () => {
    expect(() => assertModel(chat, ['generate', 'embed'], 'sources[1].model')).toThrow(
      'sources[1].model (mine m-1) lacks embed',
    );
  });
});
