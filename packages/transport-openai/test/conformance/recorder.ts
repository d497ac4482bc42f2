/**
 * What the provider's own tests send and parse, recorded by the conformance hooks (setup.ts) and
 * checked against the OpenAPI document after each test.
 */

/** The component schemas of the vendored OpenAI document (spec/openapi.yaml) a provider's requests and answers are checked against. */
export type SpecSchema =
  | 'CreateChatCompletionRequest'
  | 'CreateChatCompletionResponse'
  | 'CreateChatCompletionStreamResponse'
  | 'CreateEmbeddingRequest'
  | 'CreateEmbeddingResponse';

export interface Recorded {
  schema: SpecSchema;
  /** The request body built, or the answer JSON parsed without error. */
  value: unknown;
}

const recorded: Recorded[] = [];
const offSpec = new Set<SpecSchema>();

export function record(schema: SpecSchema, value: unknown): void {
  recorded.push({ schema, value });
}

/**
 * Marks what the current test parses as `schema` as deliberately outside the spec (a tolerance for
 * servers that deviate from it, e.g. arguments as an object): not checked. Say why in the test.
 */
export function toleratesOffSpec(schema: SpecSchema): void {
  offSpec.add(schema);
}

/** What the current test recorded and did not mark off-spec; resets both for the next test. */
export function takeRecorded(): Recorded[] {
  const taken = recorded.splice(0).filter((item) => !offSpec.has(item.schema));
  offSpec.clear();
  return taken;
}
