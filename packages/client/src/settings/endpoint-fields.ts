/** The fields that describe an endpoint to build a model for; a source given a model instance takes none of them. */
export const ENDPOINT_FIELDS = [
  'baseUrl',
  'apiKey',
  'apiKeyHeader',
  'headers',
  'query',
  'stream',
  'maxResponseBytes',
  'provider',
  'extraBody',
  'strictSchema',
  'effortMap',
] as const;
