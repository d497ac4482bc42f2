/** A refusal of a body nested in another names the whole path, from the error's fields alone. */
import { describe, expect, it } from 'vitest';
import { InvalidRequestFieldError } from '../src/index.js';
import { messagesRefusal as refusal } from './refusal.js';


describe('InvalidRequestFieldError.within', () => {
  it('prefixes the field with the path of the nested body, keeping the problem', () => {
    const error = refusal({ model: 'm', max_tokens: 'ten', messages: [{ role: 'user', content: 'hi' }] });
    expect(error.param).toBe('max_tokens');
    expect(error.message).toBe(`max_tokens ${error.problem}`);
    const nested = error.within('requests[2].params');
    expect(nested).toBeInstanceOf(InvalidRequestFieldError);
    expect([nested.param, nested.problem, nested.message]).toEqual(['requests[2].params.max_tokens', error.problem, `requests[2].params.max_tokens ${error.problem}`]);
  });

  it('names the nested body itself when the whole body is refused', () => {
    const nested = refusal('text').within('requests[0].params');
    expect(nested.param).toBe('requests[0].params');
    expect(nested.message).toMatch(/^requests\[0\]\.params /);
  });
});
