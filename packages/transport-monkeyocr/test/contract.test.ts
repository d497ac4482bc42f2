import { ocrModelContract } from '@pgw/testkit';
import { monkeyOcr } from '../src/index.js';

ocrModelContract('monkeyOcr', (options) => monkeyOcr({ ...options, warn: () => {} }));
