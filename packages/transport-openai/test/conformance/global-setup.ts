/** Reads the vendored OpenAPI document once per test run, for every test file's conformance check. */
import { provideOpenapiComponents } from '@pgw/testkit/internal';
import type { TestProject } from 'vitest/node';

export default function setup(project: TestProject): void {
  provideOpenapiComponents(project, new URL('../../spec/openapi.yaml', import.meta.url));
}
