import type { ChatRequest } from '@pgw/core';
import type { ZodType } from 'zod';

/** A chat request as it enters the onion: the transport's request plus what the outer layers consume. */
export interface GatewayChatRequest extends ChatRequest {
  /** Ask for a typed result (SPEC §8); the structured layer strips it before the transport. */
  structured?: ZodType;
}
