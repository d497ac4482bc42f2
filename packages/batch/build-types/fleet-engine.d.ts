// The build of @pgw/batch runs before @pgw/batch-bullmq's (which depends on it): its dynamic import
// is typed by src/batch-store.ts's FleetEngineModule, held to the real module by `pnpm typecheck`.
declare module '@pgw/batch-bullmq';
