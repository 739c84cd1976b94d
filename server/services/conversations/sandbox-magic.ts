/**
 * Magic customer-message contents of the sandbox (issue 69 item 4; docs/test-mode.md): a customer message
 * whose content is exactly one of these, written into a sandbox conversation (`livemode` false: a test key
 * of a tenant with the preview `test-mode`), forces an outcome of the AI reply that an integrator could
 * otherwise not bring about at will. Each takes the place of the real rule at the step where that rule
 * acts, so the rules before it still apply first (an operator's conversation answers `operator_active`, a
 * channel without AI `no_agent`). In live data, and for a test key without the preview, they are ordinary
 * text.
 */
export const SANDBOX_MAGIC = {
  /** Judged spam: `ai_reply` `skipped` with reason `spam`; no operation, no charge. */
  spam: "test:spam",
  /**
   * The model is unavailable: the operation is `failed` with error code `ai_unavailable`, its hold
   * released, the conversation `handoff_pending` with `conversation.handoff_requested`; the answer is
   * `skipped` `ai_unavailable_handoff`.
   */
  aiUnavailable: "test:ai_unavailable",
  /**
   * The operation fails as a timed-out one does: `failed` with error code `operation_timeout`, its hold
   * released, the conversation handed to an operator; the answer is `skipped` `ai_unavailable_handoff`.
   */
  fail: "test:fail",
} as const;

/** The outcome a magic content forces: the model unavailable, or the operation failing. */
export type SandboxFailure = "ai_unavailable" | "fail";

/**
 * Whether `content` of a customer message in a conversation of mode `livemode` is the magic `test:spam`.
 * Only in the sandbox; the content must match exactly (case and spacing included).
 */
export function isSandboxSpam(livemode: boolean, content: string | null): boolean {
  return !livemode && content === SANDBOX_MAGIC.spam;
}

/**
 * The failure a customer message of the sandbox forces on its AI reply, or null (then the offline model
 * answers it). Null in live data, whatever the content.
 */
export function sandboxFailure(livemode: boolean, content: string | null): SandboxFailure | null {
  if (livemode) return null;
  if (content === SANDBOX_MAGIC.aiUnavailable) return "ai_unavailable";
  if (content === SANDBOX_MAGIC.fail) return "fail";
  return null;
}
