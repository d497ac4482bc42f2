/**
 * Layer rules of docs/architecture.md#packages-and-layers. Workspace imports resolve through pnpm symlinks to packages/<name>/src,
 * so the rules match on paths. `scripts/layer-rules-selfcheck.mjs` proves each rule can fire.
 */
const IO_LIBRARIES = '^node_modules/(undici|ioredis|pg|pg-pool|better-sqlite3)/|(^|/)node_modules/\\.pnpm/(undici|ioredis|pg|pg-pool|better-sqlite3)@';
const ADAPTERS = '(backend-memory|backend-redis|telemetry-pg|telemetry-sqlite|telemetry-otel|keys-sqlite|keys-pg)';
const PROVIDERS = '(transport-openai|transport-monkeyocr)';
const HTTP_LIBRARY = '^node_modules/undici/|(^|/)node_modules/\\.pnpm/undici@';
const FLEET_LIBRARIES = '^node_modules/(bullmq|ioredis|pg|pg-pool)/|(^|/)node_modules/\\.pnpm/(bullmq|ioredis|pg|pg-pool)@';
// What a pure translation never touches: a socket, a store, an HTTP framework or client.
const WIRE_IO = '^node_modules/(undici|ioredis|pg|pg-pool|better-sqlite3|bullmq|fastify|busboy)/|(^|/)node_modules/\\.pnpm/(undici|ioredis|pg|pg-pool|better-sqlite3|bullmq|fastify|busboy)@';
const OPTIONAL_ADAPTERS = '^packages/(backend-redis|telemetry-pg|telemetry-sqlite|telemetry-otel|transport-monkeyocr)/';

module.exports = {
  forbidden: [
    {
      name: 'core-imports-no-workspace-package',
      comment: '@pgw/core is the innermost layer: it imports no other workspace package.',
      severity: 'error',
      from: { path: '^packages/core/src/' },
      to: { path: '^(packages|apps)/', pathNot: '^packages/core/' },
    },
    {
      name: 'core-imports-no-io-library',
      comment: '@pgw/core imports no I/O library (undici, ioredis, pg, better-sqlite3).',
      severity: 'error',
      from: { path: '^packages/core/src/' },
      to: { path: IO_LIBRARIES },
    },
    {
      name: 'adapters-import-only-core',
      comment: 'Backends, telemetry adapters (stores, OpenTelemetry) and key stores import only @pgw/core: never each other, @pgw/http, middleware, providers or client.',
      severity: 'error',
      from: { path: `^packages/${ADAPTERS}/src/` },
      to: { path: '^(packages|apps)/', pathNot: ['^packages/core/', '^packages/$1/'] },
    },
    {
      name: 'backends-import-no-http-library',
      comment: 'Backends and telemetry stores never speak HTTP: no undici.',
      severity: 'error',
      from: { path: `^packages/${ADAPTERS}/src/` },
      to: { path: HTTP_LIBRARY },
    },
    {
      name: 'providers-import-only-http-and-core',
      comment: 'Provider adapters (transport-*) import @pgw/http and @pgw/core only: never each other, backends, middleware or client.',
      severity: 'error',
      from: { path: `^packages/${PROVIDERS}/src/` },
      to: { path: '^(packages|apps)/', pathNot: ['^packages/core/', '^packages/http/', '^packages/$1/'] },
    },
    {
      name: 'http-imports-only-core',
      comment: '@pgw/http is the attempt layer under the providers: it imports @pgw/core (and undici) only.',
      severity: 'error',
      from: { path: '^packages/http/src/' },
      to: { path: '^(packages|apps)/', pathNot: ['^packages/core/', '^packages/http/'] },
    },
    {
      name: 'middleware-imports-only-core',
      comment: '@pgw/middleware talks to models and adapters through core ports only (never @pgw/http).',
      severity: 'error',
      from: { path: '^packages/middleware/src/' },
      to: { path: '^(packages|apps)/', pathNot: ['^packages/core/', '^packages/middleware/'] },
    },
    {
      name: 'middleware-imports-no-io-library',
      comment: 'Governance never knows a wire format: no undici or other I/O library in @pgw/middleware.',
      severity: 'error',
      from: { path: '^packages/middleware/src/' },
      to: { path: IO_LIBRARIES },
    },
    {
      name: 'client-loads-optional-adapters-dynamically',
      comment: 'The client may load backend-redis, telemetry-* (OpenTelemetry included), transport-monkeyocr only with a dynamic import().',
      severity: 'error',
      from: { path: '^packages/client/src/' },
      to: { path: OPTIONAL_ADAPTERS, dynamic: false },
    },
    {
      name: 'wire-imports-only-core-and-client',
      comment: "@pgw/wire is one translation per protocol: it imports @pgw/core, and @pgw/client for the governed call's option types only, never another workspace package.",
      severity: 'error',
      from: { path: '^packages/wire/src/' },
      to: { path: '^(packages|apps)/', pathNot: ['^packages/core/', '^packages/client/', '^packages/wire/'] },
    },
    {
      name: 'wire-imports-client-types-only',
      comment: "@pgw/wire takes the governed call's types from @pgw/client (ChatOptions, ChatTool), never a value: a translation runs no client.",
      severity: 'error',
      from: { path: '^packages/wire/src/' },
      to: { path: '^packages/client/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'wire-imports-no-io',
      comment: '@pgw/wire is pure: no HTTP framework or client (fastify, busboy, undici), no store or queue library.',
      severity: 'error',
      from: { path: '^packages/wire/src/' },
      to: { path: WIRE_IO },
    },
    {
      name: 'wire-imports-no-node-builtin',
      comment: '@pgw/wire is pure: no Node built-in module (node:http, node:net, node:fs, …).',
      severity: 'error',
      from: { path: '^packages/wire/src/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'server-imports-only-client-core-wire-and-batch',
      comment: '@pgw/server is a driving adapter in front of the clients: it imports @pgw/client, @pgw/core, @pgw/wire (every protocol\'s translation), @pgw/batch (the batch routes) and its embedded key store @pgw/keys-sqlite only (and its HTTP framework); the fleet key store @pgw/keys-pg only by dynamic import.',
      severity: 'error',
      from: { path: '^packages/server/src/' },
      to: { path: '^(packages|apps)/', pathNot: ['^packages/core/', '^packages/client/', '^packages/wire/', '^packages/batch/', '^packages/keys-sqlite/', '^packages/keys-pg/', '^packages/server/'] },
    },
    {
      name: 'server-loads-keys-pg-dynamically',
      comment: '@pgw/keys-pg brings pg: @pgw/server loads it by dynamic import when PGW_KEYS__DSN names a PostgreSQL, so a server on the embedded store installs no pg.',
      severity: 'error',
      from: { path: '^packages/server/src/' },
      to: { path: '^packages/keys-pg/', dynamic: false },
    },
    {
      name: 'batch-imports-only-client-core-and-wire',
      comment: '@pgw/batch drives the clients as the server does: it imports @pgw/client, @pgw/core and @pgw/wire (a line\'s translation, the routes\' own) only (and its own stores, and its optional fleet engine @pgw/batch-bullmq), never an adapter, middleware or provider directly.',
      severity: 'error',
      from: { path: '^packages/batch/src/' },
      to: { path: '^(packages|apps)/', pathNot: ['^packages/core/', '^packages/client/', '^packages/wire/', '^packages/batch/', '^packages/batch-bullmq/'] },
    },
    {
      name: 'batch-loads-its-fleet-engine-dynamically',
      comment: '@pgw/batch may load @pgw/batch-bullmq only with a dynamic import() (an optional package: an application on the embedded engine installs neither it nor BullMQ, ioredis or pg).',
      severity: 'error',
      from: { path: '^packages/batch/src/' },
      to: { path: '^packages/batch-bullmq/', dynamic: false },
    },
    {
      name: 'batch-bullmq-imports-only-core',
      comment: "@pgw/batch-bullmq is an adapter of @pgw/core's batch engine port: it imports @pgw/core (the port, and the SQL transaction of @pgw/core/internal) only, never @pgw/batch, whose chooser loads it.",
      severity: 'error',
      from: { path: '^packages/batch-bullmq/src/' },
      to: { path: '^(packages|apps)/', pathNot: ['^packages/core/', '^packages/batch-bullmq/'] },
    },
    {
      name: 'fleet-libraries-in-their-adapters',
      comment: 'bullmq, ioredis and pg are imported by the packages an application installs for a fleet only (@pgw/backend-redis, @pgw/telemetry-pg, @pgw/batch-bullmq, and @pgw/keys-pg: the key store a fleet of servers shares, LISTEN/NOTIFY on its own pg connection), so nothing else pulls them in.',
      severity: 'error',
      from: { path: '^packages/[^/]+/src/', pathNot: ['^packages/backend-redis/src/', '^packages/telemetry-pg/src/', '^packages/batch-bullmq/src/', '^packages/keys-pg/src/'] },
      to: { path: FLEET_LIBRARIES },
    },
    {
      name: 'only-the-cli-imports-server',
      comment: 'Nothing but apps/cli (`pgw serve`) imports @pgw/server: the library never depends on its HTTP front.',
      severity: 'error',
      from: { path: '^(packages|apps)/[^/]+/src/', pathNot: ['^packages/server/', '^apps/cli/'] },
      to: { path: '^packages/server/' },
    },
    {
      name: 'ai-sdk-imports-only-client-http-and-core',
      comment: '@pgw/ai-sdk is an integration layer above the client: it imports @pgw/client, @pgw/core and @pgw/http (the one classification of HTTP failures) only.',
      severity: 'error',
      from: { path: '^packages/ai-sdk/src/' },
      to: { path: '^(packages|apps)/', pathNot: ['^packages/(core|client|http|ai-sdk)/'] },
    },
    {
      name: 'no-package-imports-ai-sdk',
      comment: '@pgw/ai-sdk is outermost among the packages: no package imports it (apps may).',
      severity: 'error',
      from: { path: '^packages/', pathNot: '^packages/ai-sdk/' },
      to: { path: '^packages/ai-sdk/' },
    },
    {
      name: 'client-imports-no-app',
      comment: 'Packages never import apps.',
      severity: 'error',
      from: { path: '^packages/[^/]+/src/' },
      to: { path: '^apps/' },
    },
    {
      name: 'no-testkit-in-src',
      comment: '@pgw/testkit is for tests only.',
      severity: 'error',
      from: { path: '^packages/[^/]+/src/', pathNot: '^packages/testkit/' },
      to: { path: '^packages/testkit/' },
    },
    {
      name: 'no-deep-imports',
      comment: 'Import another package only through its exports (src/index.ts, src/internal.ts for workspace helpers), never a file deep inside it.',
      severity: 'error',
      from: { path: '^(packages|apps)/([^/]+)/' },
      to: { path: '^(packages|apps)/([^/]+)/src/', pathNot: ['^$1/$2/', '^(packages|apps)/[^/]+/src/index\\.ts$', '^packages/[^/]+/src/internal\\.ts$'] },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // Only the workspace's own build output: a library's `dist/` entry (bullmq's) must stay visible to the rules.
    exclude: { path: '^(packages|apps)/[^/]+/dist/' },
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['@pgw/source', 'import', 'require', 'node', 'default'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
