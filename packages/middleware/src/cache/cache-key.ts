import { createHash } from 'node:crypto';
import type { CacheIsolation, ChatMessage, ContentPart } from '@pgw/core';
import { z } from 'zod';
import { canonicalJson } from './canonical-json.js';
import type { GatewayChatRequest } from '../pipeline/chat-request.js';

export interface CacheKeyScope {
  /** The model identity of the scope (its sources' models). */
  model: string;
  /** The isolation unit (tenant, project…). */
  namespace: string;
  salt: string;
  isolation: CacheIsolation;
  /** The call's tenant; part of the key under `tenant` isolation (absent = the tenant-less partition). */
  tenantId?: string | undefined;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * SHA-256 over model, a digest of the messages, namespace, the partition (the tenant under `tenant`
 * isolation), salt, sampling (canonical JSON), the effective reasoning effort (low and max never
 * share an entry), the structured schema and, for a call with tools, the tools (schemas included),
 * the tool choice and the parallel flag. Keys of calls without tools are unchanged by tool support.
 */
export function chatCacheKey(request: GatewayChatRequest, scope: CacheKeyScope): string {
  return sha256Hex(
    canonicalJson({
      v: 1,
      model: scope.model,
      messages: messagesDigest(request.messages),
      namespace: scope.namespace,
      partition: scope.isolation === 'tenant' ? { tenant: scope.tenantId ?? null } : 'namespace',
      salt: scope.salt,
      sampling: request.sampling,
      effort: request.reasoningEffort ?? null,
      responseFormat: request.responseFormat ?? null,
      structured: request.structured ? sha256Hex(canonicalJson(schemaShape(request.structured))) : null,
      ...(request.tools !== undefined && {
        tools: request.tools,
        toolChoice: request.toolChoice ?? null,
        parallelToolCalls: request.parallelToolCalls ?? null,
      }),
    }),
  );
}

/** Multimodal payloads are digested first, so a crafted URL or audio blob cannot collide with other content. */
export function messagesDigest(messages: readonly ChatMessage[]): string {
  return sha256Hex(
    canonicalJson(
      messages.map((message) => ({
        role: message.role,
        name: message.name ?? null,
        content: Array.isArray(message.content) ? message.content.map(partDigest) : message.content,
        ...(message.tool_calls !== undefined && { toolCalls: message.tool_calls }),
        ...(message.tool_call_id !== undefined && { toolCallId: message.tool_call_id }),
      })),
    ),
  );
}

function partDigest(part: ContentPart): unknown {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image_url':
      return { type: 'image_url', url: sha256Hex(part.image_url.url), detail: part.image_url.detail ?? null };
    case 'input_audio':
      return { type: 'input_audio', data: sha256Hex(part.input_audio.data), format: part.input_audio.format };
    default:
      return { type: 'other', digest: sha256Hex(canonicalJson(part)) };
  }
}

function schemaShape(schema: z.ZodType): unknown {
  return z.toJSONSchema(schema, { unrepresentable: 'any', io: 'output' });
}
