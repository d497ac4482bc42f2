/**
 * Conformance to the OpenAI OpenAPI document, for every test of this package: what the server
 * answered on `POST /v1/responses` through `responsesCheckingFetch` is checked after each test, so a
 * change that makes the server emit an off-spec answer or event fails the test that received it.
 */
import { afterEach, expect } from 'vitest';
import { takeResponsesDrifts } from './responses.js';

afterEach(async () => {
  expect(await takeResponsesDrifts(), 'the Responses answers and events must conform to the OpenAI OpenAPI document').toEqual([]);
});
