/** The refusal of a Messages body the route must not take (the test fails if it is taken, or refused otherwise). */
import { expect } from 'vitest';
import { InvalidRequestFieldError, messagesCall } from '../src/index.js';

export function messagesRefusal(body: unknown): InvalidRequestFieldError {
  try {
    messagesCall(body);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRequestFieldError);
    return error as InvalidRequestFieldError;
  }
  throw new Error('the body was accepted');
}
