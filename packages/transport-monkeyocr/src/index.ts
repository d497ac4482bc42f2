export { MonkeyOcrTransport, type MonkeyOcrTransportOptions } from './transport.js';
export type { LayoutArchive } from './layout-archive.js';
