import type { SharedV3Warning } from '@ai-sdk/provider';

/**
 * A governed call cannot send per-call headers: a source's headers belong to its model, and one
 * call may reach several sources. The AI SDK sets `user-agent` on every call itself: that one is
 * no caller's header.
 */
export function headerWarnings(headers: Record<string, string | undefined> | undefined): SharedV3Warning[] {
  const given = Object.entries(headers ?? {}).some(([name, value]) => value !== undefined && name.toLowerCase() !== 'user-agent');
  return given ? [{ type: 'unsupported', feature: 'headers', details: "per-call headers are not sent: a source's headers belong to its model" }] : [];
}
