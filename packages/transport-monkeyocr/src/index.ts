export { monkeyOcr, MONKEYOCR_PROVIDER, type MonkeyOcrModel, type MonkeyOcrOptions } from './monkey-ocr.js';
export type { LayoutArchive } from './layout-archive.js';
