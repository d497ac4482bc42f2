import { packageTestConfig } from '../../vitest.shared.ts';

// Every test here spawns `pgw` (tsx on the source) once or several times: 13–19 s on a busy CI
// machine for the longest, so the workspace's 20 s default would fail them by load alone.
export default packageTestConfig({ testTimeout: 60_000 });
