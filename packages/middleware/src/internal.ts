// `@pgw/middleware/internal`: helpers the workspace's client and bench share with the call path.
// Not a user surface: it changes without notice.
export { timeOrderedId } from './time-ordered-id.js';
