/** Reads the vendored OpenAI OpenAPI document once per run, for the wire fixtures' check (test/wire-fixtures.test.ts). */
import { provideOpenapiComponents } from '@pgw/testkit/internal';
import type { TestProject } from 'vitest/node';

export default function setup(project: TestProject): void {
  provideOpenapiComponents(project, new URL('../../node_modules/@pgw/transport-openai/spec/openapi.yaml', import.meta.url));
}
