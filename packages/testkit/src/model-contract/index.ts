export { chatModelContract } from './chat-contract.js';
export { embeddingModelContract } from './embedding-contract.js';
export { ocrModelContract } from './ocr-contract.js';
export { CONTRACT_HEADER_VALUE, CONTRACT_KEY, recordingAttempt, type ContractModelOptions, type MakeModel, type RecordingAttempt } from './support.js';
export { startLoopbackUpstream, type ContractReply, type ContractRequest, type LoopbackUpstream } from './loopback-upstream.js';
