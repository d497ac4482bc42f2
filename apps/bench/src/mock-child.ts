/** Child process entry: runs the mock upstream so its CPU is not charged to the contenders' event loop. */
import { startMockUpstream } from '@pgw/mock-upstream';
import { serveParent } from './child.js';
import { MOCK_SCRIPT } from './mock-script.js';

const mock = await startMockUpstream({ port: 0, host: '127.0.0.1', script: MOCK_SCRIPT, seed: 1 });

serveParent(
  async (request) => {
    switch (request.type) {
      case 'url':
        return { url: mock.url };
      case 'reset':
        mock.reset();
        return {};
      case 'counters':
        return { counters: mock.counters(String(request.source)) };
      default:
        throw new Error(`unknown request ${request.type}`);
    }
  },
  () => mock.close(),
);
