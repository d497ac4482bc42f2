import { packageTestConfig } from '../../vitest.shared.ts';

export default packageTestConfig({ testTimeout: 30_000 });
