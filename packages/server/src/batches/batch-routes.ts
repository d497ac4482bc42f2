/**
 * `/v1/files` and `/v1/batches` in OpenAI's shapes, over `ServerBatches`. Every field is checked at
 * the door: the upload is streamed through busboy with bounded parts, fields and size; ids in paths
 * are matched against their pattern before any lookup; the batch body by a zod schema.
 */
import busboy from 'busboy';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MAX_ID_LENGTH } from '@pgw/client';
import { JOB_ID_PATTERN } from '@pgw/batch';
import { z } from 'zod';
import { BATCH_ENDPOINTS, batchObject, fileObject, type ServerBatches } from './batches.js';
import type { RequestCaller } from '../door/caller.js';
import { InvalidRequestFieldError, parseRequest } from '@pgw/wire';
import { FileTooLargeError, ObjectNotFoundError } from '../door/request-error.js';

const BYTES_PER_MB = 1024 * 1024;
const FILE_ID = /^file-[0-9a-f]{24}$/;
const MAX_LIST_LIMIT = 100;
const DEFAULT_LIST_LIMIT = 20;

/** OpenAI's bounds on batch metadata: 16 pairs, keys of 64 characters, values of 512. */
const batchBody = z.object({
  input_file_id: z.string().regex(FILE_ID, 'must be a file id (file-…)'),
  endpoint: z.enum(BATCH_ENDPOINTS),
  completion_window: z.literal('24h'),
  metadata: z
    .record(z.string().max(64), z.string().max(512))
    .refine((map) => Object.keys(map).length <= 16, { message: 'must have at most 16 pairs' })
    .nullish(),
});

const listQuery = z.object({
  after: z.string().regex(JOB_ID_PATTERN, 'must be a batch id').optional(),
  limit: z.coerce.number().int().min(1).max(MAX_LIST_LIMIT).default(DEFAULT_LIST_LIMIT),
});

const PROTECTED = { config: { protected: true } };

interface Upload {
  purpose?: string;
  filename?: string;
  content?: Buffer;
}

/** Reads one multipart upload: the `file` part (bounded) and the `purpose` field; anything else is refused. */
function readUpload(request: FastifyRequest, maxFileMb: number): Promise<Upload> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: request.headers, limits: { files: 1, fields: 4, parts: 5, fieldSize: 1024, fileSize: Math.floor(maxFileMb * BYTES_PER_MB) } });
    } catch {
      reject(new InvalidRequestFieldError('body', 'must be multipart/form-data with a boundary'));
      return;
    }
    const upload: Upload = {};
    let failure: Error | undefined;
    parser.on('field', (name, value) => {
      if (name === 'purpose') upload.purpose = value;
    });
    parser.on('file', (name, stream, info) => {
      if (name !== 'file' || upload.content !== undefined) {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => (failure ??= new FileTooLargeError(maxFileMb)));
      stream.on('end', () => {
        upload.content = Buffer.concat(chunks);
        upload.filename = info.filename;
      });
    });
    parser.on('partsLimit', () => (failure ??= new InvalidRequestFieldError('body', 'has too many parts')));
    parser.on('error', () => reject(failure ?? new InvalidRequestFieldError('body', 'is not a well-formed multipart body')));
    parser.on('close', () => (failure ? reject(failure) : resolve(upload)));
    request.raw.pipe(parser);
  });
}

/** A file name as it will be shown back: no control characters, bounded. */
const cleanName = (name: string | undefined): string => (name ?? 'upload.jsonl').replace(/[\u0000-\u001f\u007f]/g, '').slice(0, MAX_ID_LENGTH) || 'upload.jsonl';

export function registerBatchRoutes(app: FastifyInstance, batches: ServerBatches, maxFileMb: number, callerOf: (request: FastifyRequest) => RequestCaller): void {
  const tenantOf = (request: FastifyRequest) => callerOf(request).tenantId ?? '';
  const fileId = (id: string) => {
    if (!FILE_ID.test(id)) throw new ObjectNotFoundError('File', id.slice(0, 64));
    return id;
  };
  const batchId = (id: string) => {
    if (!JOB_ID_PATTERN.test(id)) throw new ObjectNotFoundError('Batch', id.slice(0, 64));
    return id;
  };

  // The upload is read by the route, streamed and bounded, not buffered whole by the framework.
  app.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null));

  app.post('/v1/files', PROTECTED, async (request) => {
    const upload = await readUpload(request, maxFileMb);
    if (upload.purpose !== 'batch') throw new InvalidRequestFieldError('purpose', 'must be "batch"');
    if (upload.content === undefined) throw new InvalidRequestFieldError('file', 'is required');
    return fileObject(await batches.createFile(tenantOf(request), cleanName(upload.filename), 'batch', upload.content));
  });
  app.get<{ Params: { id: string } }>('/v1/files/:id', PROTECTED, async (request) => fileObject(await batches.file(tenantOf(request), fileId(request.params.id))));
  app.get<{ Params: { id: string } }>('/v1/files/:id/content', PROTECTED, async (request, reply) => {
    const content = await batches.fileContent(tenantOf(request), fileId(request.params.id));
    return reply.type('application/octet-stream').send(Buffer.from(content));
  });

  app.post('/v1/batches', PROTECTED, async (request) => {
    const body = parseRequest(batchBody, request.body);
    const job = await batches.create(callerOf(request), {
      inputFileId: body.input_file_id,
      endpoint: body.endpoint,
      completionWindow: body.completion_window,
      ...(body.metadata && { metadata: body.metadata }),
    });
    return batchObject(job);
  });
  app.get<{ Params: { id: string } }>('/v1/batches/:id', PROTECTED, async (request) => batchObject(await batches.retrieve(tenantOf(request), batchId(request.params.id))));
  app.get('/v1/batches', PROTECTED, async (request) => {
    const query = parseRequest(listQuery, request.query);
    const page = await batches.list(tenantOf(request), 'batch', { after: query.after, limit: query.limit });
    const data = page.jobs.map(batchObject);
    return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: page.hasMore };
  });
  app.post<{ Params: { id: string } }>('/v1/batches/:id/cancel', PROTECTED, async (request) =>
    batchObject(await batches.cancel(tenantOf(request), batchId(request.params.id))),
  );
}
