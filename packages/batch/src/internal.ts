// `@pgw/batch/internal`: what the engines of our other packages (@pgw/batch-bullmq) share with the
// embedded one; it moves with @pgw/batch's exact version, and applications never import it.
export { resultOf } from './engine.js';
export type { ResultRow } from './engine.js';
