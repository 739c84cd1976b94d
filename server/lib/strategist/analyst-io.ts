/**
 * What the strategist's brain is asked and answers (issue 73 item 3), behind the language-model interface
 * (server/services/ai-seller/language-model.ts `analyze`): the offline analyst answers from these figures
 * deterministically; an OpenAI-compatible model gets the same figures as its context. Nothing here names
 * another tenant or a competitor's domain (spec "Strategist resources": hidden).
 */

/**
 * The tenant's own figures the strategist reads, in one tenant and mode, gathered by
 * server/services/strategist/tenant-figures.ts `readStrategistFigures`. Money in RUB minor units as
 * decimal strings; dates YYYY-MM-DD.
 */
export interface StrategistFigures {
  /** The day the figures were read (UTC), YYYY-MM-DD. */
  asOf: string;
  /** Source → date YYYY-MM-DD through which its data is complete (a report's `data_as_of`). */
  dataAsOf: Record<string, string>;
  /** Everything else the analyst reads; its shape is the figures module's own. */
  [section: string]: unknown;
}

/** One earlier turn of the chat session, oldest first. */
export interface AnalystTurn {
  role: "user" | "strategist";
  content: string;
}

/** What the analyst is asked for one chat turn. */
export interface AnalystInput {
  shopName: string;
  figures: StrategistFigures;
  /** Earlier turns of the session, oldest first (without the question). */
  turns: AnalystTurn[];
  /** The user's message of this turn (≤ 4,000 characters). */
  question: string;
}

/** A topic the analyst proposes; becomes a `propose_topic` action awaiting confirmation. */
export interface TopicProposal {
  /** The topic's title (≤ 200 characters): the action's `title`, and the topic's once confirmed. */
  title: string;
  rationale: string;
  /** 0-100, or null when not scored. */
  trendScore: number | null;
  clusterId: string | null;
}

/** The analyst's answer to one turn: text citing the figures, proposals (0-3), tokens used, model name. */
export interface AnalystOutput {
  reply: string;
  proposals: TopicProposal[];
  model: string;
  inputTokens: number;
  outputTokens: number;
}
