import { chatModelContract, embeddingModelContract } from '@pgw/testkit';
import { openaiCompatible } from '../src/index.js';

chatModelContract('openaiCompatible', (options) => openaiCompatible({ ...options, model: 'contract-model', warn: () => {} }));
embeddingModelContract('openaiCompatible', (options) => openaiCompatible({ ...options, model: 'contract-embedder', warn: () => {} }));
