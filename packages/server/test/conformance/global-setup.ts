/**
 * Reads the OpenAI OpenAPI document once per test run. It is vendored once, in @pgw/transport-openai
 * (a devDependency for this): through that dependency's link, so a new document also reruns these tests.
 */
import { provideOpenapiComponents } from '@pgw/testkit/internal';
import type { TestProject } from 'vitest/node';

export default function setup(project: TestProject): void {
  provideOpenapiComponents(project, new URL('../../node_modules/@pgw/transport-openai/spec/openapi.yaml', import.meta.url));
}
