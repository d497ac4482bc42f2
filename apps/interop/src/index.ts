export { startChildServer, type ChildServer, type ServerLaunch, type StartOptions } from './child-server.js';
export { llmopsRouting, portkeyRouting } from './relay-headers.js';
export { startLlmopsGateway, startMockLlm, startPortkeyGateway, type MockLlmConfig, type MockLlmServer } from './servers.js';
