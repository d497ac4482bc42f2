// Where the behaviours live: monkey-ocr.ts is the model (its attempt runs on @pgw/http); upload.ts
// names a file for the server; layout-archive.ts reads a `/parse` archive; classify.ts sorts a 2xx
// answer that cannot be used.
export { monkeyOcr, MONKEYOCR_PROVIDER, type MonkeyOcrModel, type MonkeyOcrOptions } from './monkey-ocr.js';
export type { LayoutArchive } from './layout-archive.js';
