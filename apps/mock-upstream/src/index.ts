export { startMockUpstream, type MockUpstream, type MockUpstreamOptions } from './server.js';
export { mockEmbedding } from './embeddings.js';
export { defaultLayout } from './ocr.js';
export type {
  Counters,
  MockScript,
  RecordedFile,
  RecordedRequest,
  RouteName,
  ScriptLayout,
  ScriptUsage,
  SourceScript,
  Step,
  StepKind,
} from './types.js';
export { probeHandles, type HandleProbe } from './handle-probe.js';
