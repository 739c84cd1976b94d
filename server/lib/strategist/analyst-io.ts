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
  /** The tenant's language (ISO 639-1) when known: the editorial profile's locale, else its articles'. */
  language: string | null;
  /** The tenant's leads (archived included): every status, the sources, and the two period comparisons. */
  leads: {
    total: number;
    byStatus: Record<string, number>;
    /** Leads created in the period. */
    created: PeriodPair;
    /** Leads won in the period (`won_at`). */
    won: PeriodPair;
    /** Sources by leads, most first (at most 10); a lead without a source counts as `unknown`. */
    bySource: SourceFigures[];
  };
  /** Customer conversations (hidden kinds never counted). */
  conversations: {
    total: number;
    /** `open`, `handoff_pending`, `resolved`, `closed`. */
    byStatus: Record<string, number>;
    /** Conversations that produced a lead. */
    withLead: number;
    /** Conversations handled by an operator (`mode` operator). */
    byOperator: number;
    started: PeriodPair;
  };
  /** The tenant's own blog (the shared blog never counted). */
  articles: {
    total: number;
    byStatus: Record<string, number>;
    published: PeriodPair;
    /** The latest articles, newest first (at most 10). */
    recent: ArticleFigure[];
    /** Pages by sessions from the `popular_pages` dashboard block, most first (at most 10); null without it. */
    traffic: PageTraffic[] | null;
  };
  /**
   * The funnel sessions → leads → won over the last 30 days; `sessions` from the dashboard's `kpi` or
   * `funnel` block, null when no block carries it.
   */
  funnel: { sessions: number | null; leads: number; won: number };
  /** Every dashboard block with a row: availability, reason, and its payload's numeric fields. */
  dashboard: DashboardFigure[];
  /** Strategist topics, newest first (at most 100), competitors masked. */
  topics: { title: string; status: string; trendScore: number | null }[];
  /** The tenant's keywords (its articles' and generations'), most used first (at most 20). */
  keywords: { keyword: string; articles: number }[];
  /** The tenant's active cards, in catalog order (at most 20). */
  cards: { code: string; name: string; priceText: string | null }[];
}

/** A count in the latest period and the one before it: `week` = last 7 days vs the 7 before; `month` = 30 vs 30. */
export interface PeriodPair {
  week: { current: number; previous: number };
  month: { current: number; previous: number };
}

/** One lead source's figures. */
export interface SourceFigures {
  source: string;
  total: number;
  won: number;
  created: PeriodPair;
}

/** One article as the analyst sees it. */
export interface ArticleFigure {
  title: string;
  status: string;
  keyword: string | null;
  /** YYYY-MM-DD, or null when not published. */
  publishedOn: string | null;
  wordCount: number;
}

/** One page's traffic, as the `popular_pages` block reports it. */
export interface PageTraffic {
  page: string;
  sessions: number;
}

/** One dashboard block's state. */
export interface DashboardFigure {
  block: string;
  availability: string;
  reason: string | null;
  /** The payload's top-level numeric fields (at most 12). */
  metrics: Record<string, number>;
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
