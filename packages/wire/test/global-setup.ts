/** Reads the OpenAI OpenAPI document (vendored in @pgw/transport-openai) once per test run, as the server's tests do. */
import { provideOpenapiComponents } from '@pgw/testkit/internal';
import type { TestProject } from 'vitest/node';

export default function setup(project: TestProject): void {
  provideOpenapiComponents(project, new URL('../node_modules/@pgw/transport-openai/spec/openapi.yaml', import.meta.url));
}
