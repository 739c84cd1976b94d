"use client";

import { ActionsSection } from "./actions-section";
import { ChatSection } from "./chat-section";
import { ReportsSection } from "./reports-section";
import { TopicsSection } from "./topics-section";

/**
 * The Strategist page's body (issue 73 item 5): what the strategist wrote (reports), what it proposes
 * (topics and actions, each with its decision buttons) and the chat with it, in the console's mode.
 */
export function StrategistPanel({ tenantId }: { tenantId: string }) {
  return (
    <>
      <h1>Strategist</h1>
      <p className="hint">
        The strategist reads your own figures (leads, conversations, articles and their traffic) and proposes what to
        write next. Approve the topics you want; confirm the actions you agree with. Reading and deciding are free; a
        chat turn is paid from the wallet of this mode.
      </p>
      <ReportsSection tenantId={tenantId} />
      <TopicsSection tenantId={tenantId} />
      <ActionsSection tenantId={tenantId} />
      <ChatSection tenantId={tenantId} />
    </>
  );
}
