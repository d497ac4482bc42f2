/** The OCR client (docs/architecture.md#public-api): MonkeyOCR text recognition and layout parsing; OCR settles 0 tokens. */
import type { Governor, KeyBounds, KeyStatus, OcrLayoutResult, OcrModel, OcrOptions, OcrSettings, OcrTextResult, Source } from '@pgw/core';
import { readTenantStatus, type TenantStatus } from './tenant-status.js';
import { readKeyStatus } from './key-status.js';
import { assembleOcrPipeline } from '@pgw/middleware';
import type { OcrPipeline } from '@pgw/middleware';
import { assembleComponents } from './assembly/components.js';
import type { AssemblyOverrides } from './assembly/components.js';
import { governedSources, withModels } from './assembly/models.js';
import { monkeyOcrFor } from './assembly/providers.js';
import {
  assertImage,
  assertRequestSize,
  assertSignal,
  commonCallOptions,
  isPlainObject,
  resolveCallDeadline,
} from './call-input.js';
import type { CommonCallOptions } from './call-input.js';
import { OwningClient, assembling } from './client-lifecycle.js';
import { requireParts, seams, type ClientParts } from './client-parts.js';
import { ocrSettings } from './settings/construct.js';
import { loadOcrSettings } from './settings/load-env.js';
import type { LoadSettingsOptions } from './settings/load-env.js';

export interface OcrCallOptions extends CommonCallOptions, OcrOptions {}

const OCR_OPTIONS = ['fields', 'fileName', 'mimeType'];

/** Full injection: settings whose sources carry an OCR model, the governance components and seams. */
export type OcrParts = Omit<ClientParts<OcrSettings>, 'pricing'>;

export type OcrClientOverrides = Omit<AssemblyOverrides, 'pricing'>;

export class OcrClient extends OwningClient {
  readonly settings: OcrSettings;
  readonly #pipeline: OcrPipeline;
  readonly #governor: Governor;
  readonly #sources: readonly Source<OcrModel>[];
  readonly #callDeadlineMs: number | undefined;

  static async fromEnv(scope = 'OCR', options: LoadSettingsOptions & OcrClientOverrides = {}): Promise<OcrClient> {
    const { env, envFile, ...overrides } = options;
    const settings = loadOcrSettings(scope, { env, envFile, ...(overrides.warn && { warn: overrides.warn }) });
    return OcrClient.fromSettings(settings, overrides);
  }

  /** The MonkeyOCR provider is an optional package, loaded here when a source is described by its endpoint. */
  static async fromSettings(settings: OcrSettings, overrides: OcrClientOverrides = {}): Promise<OcrClient> {
    const valid = ocrSettings(settings);
    const { value: client, owned } = await assembling(async (owned) => {
      const components = await assembleComponents(valid, { ...overrides, cache: false }, owned);
      const withModel = withModels(valid, await monkeyOcrFor(valid, overrides, owned), owned);
      const { now, sleep, rng, warn, callDeadlineMs } = overrides;
      return new OcrClient({ ...components, settings: withModel, now, sleep, rng, warn, callDeadlineMs });
    });
    client.adopt(owned);
    return client;
  }

  constructor(parts: OcrParts) {
    super();
    requireParts(parts, 'OcrClient', ['governor']);
    this.settings = ocrSettings(parts.settings);
    this.#callDeadlineMs = resolveCallDeadline(parts.callDeadlineMs, this.settings.callDeadlineMs, 'OcrClient(callDeadlineMs)');
    this.#governor = parts.governor;
    this.#sources = governedSources<OcrModel>(this.settings, ['recognizeText', 'parseLayout', 'checkHealth'], 'OcrClient');
    this.#pipeline = assembleOcrPipeline({
      settings: { ...this.settings, sources: this.#sources },
      governor: parts.governor,
      ...(parts.recorder && { recorder: parts.recorder }),
      subscribers: parts.subscribers,
      ...seams(parts),
    });
  }

  /** A tenant's use of the scope now: each gate's use and bound, its calls waiting here (`""` = calls without a tenant). */
  tenantStatus(tenantId: string): Promise<TenantStatus> {
    this.assertOpen('tenantStatus');
    return readTenantStatus(this.#governor, tenantId, (id) => this.#pipeline.waiting(id), 'OcrClient');
  }

  /** A stored key's use of the scope now (RPM, TPM, in flight); OCR spends nothing of its budget. */
  keyStatus(bounds: KeyBounds): Promise<KeyStatus> {
    this.assertOpen('keyStatus');
    return readKeyStatus(this.#governor, bounds, 'OcrClient');
  }

  /** Plain text of an image (`/ocr/text`); an empty text is a legal "no text". */
  async recognizeText(image: Uint8Array, options: OcrCallOptions = {}): Promise<OcrTextResult> {
    const { ocr, call } = this.#prepare('recognizeText', image, options);
    return this.#pipeline.recognizeText(image, ocr, call);
  }

  /** Markdown and layout elements of a document image (`/parse`); no elements is a legal result. */
  async parseLayout(image: Uint8Array, options: OcrCallOptions = {}): Promise<OcrLayoutResult> {
    const { ocr, call } = this.#prepare('parseLayout', image, options);
    return this.#pipeline.parseLayout(image, ocr, call);
  }

  /** Health of every source (`GET /health`), ungoverned: a probe of reachability, not a call. */
  async checkHealth(options: { signal?: AbortSignal } = {}): Promise<Record<string, boolean>> {
    this.assertOpen('checkHealth');
    assertSignal(options.signal, 'checkHealth(signal)');
    const { signal } = options;
    const verdicts = await Promise.all(
      this.#sources.map(({ model, timeoutMs }) => model.checkHealth({ timeoutMs, ...(signal && { signal }) })),
    );
    return Object.fromEntries(this.#sources.map((source, i) => [source.name, verdicts[i]!]));
  }

  #prepare(method: string, image: Uint8Array, options: OcrCallOptions) {
    this.assertOpen(method);
    assertImage(image, `${method}(image)`);
    const call = commonCallOptions(options, method, OCR_OPTIONS, this.#callDeadlineMs);
    const { fields, fileName, mimeType } = options;
    if (fields !== undefined && (!isPlainObject(fields) || Object.values(fields).some((v) => typeof v !== 'string'))) {
      throw new TypeError(`${method}(fields) must be a plain object of strings`);
    }
    for (const [name, value] of [['fileName', fileName], ['mimeType', mimeType]] as const) {
      if (value !== undefined && (typeof value !== 'string' || value === '')) throw new TypeError(`${method}(${name}) must be a non-empty string`);
    }
    assertRequestSize(fields ?? {}, `${method}(image)`, this.settings, image.byteLength);
    const ocr: OcrOptions = { ...(fields && { fields: { ...fields } }), ...(fileName && { fileName }), ...(mimeType && { mimeType }) };
    return { ocr, call };
  }
}
