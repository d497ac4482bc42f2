export { startChildServer, type ChildServer, type ServerLaunch, type StartOptions } from './child-server.js';
export { llmopsRouting, portkeyRouting } from './relay-headers.js';
export { startLlmopsGateway, startMockLlm, startPortkeyGateway, type MockLlmConfig, type MockLlmServer } from './servers.js';
export { startAnthropicWire, type AnthropicRequest, type AnthropicStep, type AnthropicWireServer } from './anthropic-wire/server.js';
export type { AnthropicAnswer, AnthropicUsage } from './anthropic-wire/wire.js';
