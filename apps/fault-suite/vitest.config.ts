import { packageTestConfig } from '../../vitest.shared.ts';

// Each file starts and kills servers of its own; run one at a time so figures are not skewed by the others.
export default packageTestConfig({ testTimeout: 90_000, fileParallelism: false });
