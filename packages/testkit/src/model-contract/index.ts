export { chatModelContract } from './chat-contract.js';
export { embeddingModelContract } from './embedding-contract.js';
export { ocrModelContract } from './ocr-contract.js';
export { CONTRACT_HEADER_VALUE, CONTRACT_KEY, type ContractModelOptions, type MakeModel } from './support.js';
export { startLoopbackUpstream, type ContractReply, type ContractRequest, type LoopbackUpstream } from './loopback-upstream.js';
