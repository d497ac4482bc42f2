import { describe, expect, it } from 'vitest';
import { ApiKeys } from '../src/api-keys.js';

describe('ApiKeys', () => {
  const keys = new ApiKeys(new Map([
    ['sk-team-a-0001', 'team-a'],
    ['sk-team-b-0002', 'team-b'],
  ]));

  it('finds the tenant of a bearer key wherever it stands in the table', () => {
    expect(keys.tenantOf({ authorization: 'Bearer sk-team-a-0001' })).toBe('team-a');
    expect(keys.tenantOf({ authorization: 'bearer sk-team-b-0002' })).toBe('team-b');
    expect(keys.tenantOf({ 'x-api-key': 'sk-team-b-0002' })).toBe('team-b');
  });

  it('knows no missing, malformed, partial or unknown key', () => {
    for (const header of [undefined, '', 'sk-team-a-0001', 'Basic sk-team-a-0001', 'Bearer sk-team-a-000', 'Bearer sk-team-a-00011', 'Bearer ']) {
      expect(keys.tenantOf({ authorization: header })).toBeUndefined();
    }
    // Authorization, when sent, is the key; a repeated x-api-key is none.
    expect(keys.tenantOf({ authorization: 'Basic x', 'x-api-key': 'sk-team-a-0001' })).toBeUndefined();
    expect(keys.tenantOf({ 'x-api-key': ['sk-team-a-0001', 'sk-team-a-0001'] })).toBeUndefined();
  });
});
