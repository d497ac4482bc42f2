// `@pgw/testkit/internal`: what the tests of this repository's packages share and its users need not
// see. Its promise: it moves with testkit's exact version; applications and adapters never import it.
export { specArbitrary, type SpecArbitraryOptions } from './openapi-arbitrary.js';
export { provideOpenapiComponents, specIssues } from './openapi.js';
export { serverSentEvents, type ServerSentEvent } from './server-sent-events.js';
