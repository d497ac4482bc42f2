import type { ChatRequest } from '@pgw/core';
import type { ZodType } from 'zod';
import type { ToolSchemas } from '../structured/tool-calls.js';

/** A chat request as it enters the onion: the transport's request plus what the outer layers consume. */
export interface GatewayChatRequest extends ChatRequest {
  /** Ask for a typed result (docs/architecture.md#structured-output); the structured layer strips it before the transport. */
  structured?: ZodType;
  /** Zod schemas of the tools given one: their calls' arguments are validated by them (the structured layer strips it). */
  toolSchemas?: ToolSchemas;
}
