import type { AttemptContent, AttemptContext, ChatDelta, ModelIdentity, Source, Usage } from '@pgw/core';
import type { CallContext } from './context.js';
import type { TokenAccounting } from './settlement.js';

/** What telemetry shows of one attempt besides its outcome: core's `AttemptContent`, built by `describe`. */
export type AttemptDescription = AttemptContent;

/** What an operation's `invoke` gets: the model's attempt context, and the delta sink of a streamed call. */
export interface OperationAttempt extends AttemptContext {
  onDelta?: (delta: ChatDelta) => void;
}

/**
 * How the retry loop performs one operation (chat, embed, OCR) against one source. `M` is the model
 * kind the operation calls; the pipeline that pairs them hands the loop sources of that kind.
 */
export interface AttemptOperation<Req, Res, M extends ModelIdentity = ModelIdentity> {
  readonly tokenAccounting: TokenAccounting;
  /** False for chat: a 429 rate limit does not consume the attempt budget (its waiting counts in the stall clock). */
  readonly rateLimitsConsumeBudget: boolean;
  invoke(source: Source<M>, request: Req, attempt: OperationAttempt): Promise<Res>;
  usageOf(result: Res): Usage | undefined;
  /** Throws ResultInvalidError for a result the operation cannot use (e.g. a wrong embedding dimension). */
  validate?(result: Res, request: Req, source: Source<M>): void;
  /** Synchronous observation of a successful attempt (e.g. thinking contradictions). */
  observe?(source: Source<M>, result: Res, ctx: CallContext): void;
  describe(request: Req, result: Res | undefined): AttemptDescription;
  /**
   * What a spend budget reserves for `request`: its prompt's estimated tokens and the most it may
   * answer (undefined: the source's estimate). Absent for operations that cost nothing (OCR).
   */
  budgetTokens?(request: Req): BudgetTokens;
}

export interface BudgetTokens {
  readonly promptTokens: number;
  readonly maxOutputTokens: number | undefined;
}
