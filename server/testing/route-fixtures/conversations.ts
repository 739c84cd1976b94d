import type { Db } from "@/db/client";
import { conversations, messages } from "@/db/schema";
import { createCard } from "@/server/services/cards/cards";
import type { IdRouteFixture } from "../route-fixtures";
import type { TenantFixture } from "../fixtures";

/** A visible customer conversation of the owner with one message. */
async function conversation(db: Db, o: TenantFixture): Promise<string> {
  const [c] = await db
    .insert(conversations)
    .values({ tenantId: o.tenantId, channelId: o.channelId, channelType: "api", externalCustomerId: "matrix" })
    .returning({ id: conversations.id });
  await db
    .insert(messages)
    .values({ tenantId: o.tenantId, conversationId: c.id, sender: "customer", content: "Hello" });
  return c.id;
}

const missing = async () => `/conversations/${crypto.randomUUID()}`;

/** Isolation fixtures of the conversation routes (see ID_ROUTE_FIXTURES). */
export const CONVERSATION_FIXTURES: Record<string, IdRouteFixture> = {
  getConversation: { make: async (db, o) => `/conversations/${await conversation(db, o)}`, missing },
  listConversationMessages: {
    make: async (db, o) => `/conversations/${await conversation(db, o)}/messages`,
    missing: async () => `${await missing()}/messages`,
  },
  sendConversationCards: {
    make: async (db, o) => {
      await createCard(db, { tenantId: o.tenantId, via: "operator" }, { code: "matrix-card", name: "Matrix" }).catch(
        () => undefined,
      ); // made once per owner
      return `/conversations/${await conversation(db, o)}/cards`;
    },
    missing: async () => `${await missing()}/cards`,
    body: { codes: ["matrix-card"] },
  },
  // The write routes of the preview `conversation-writes` (the mode matrix runs over them too).
  postCustomerMessage: {
    make: async (db, o) => `/conversations/${await conversation(db, o)}/messages`,
    missing: async () => `${await missing()}/messages`,
    body: { content: "Hello" },
  },
  postOperatorMessage: {
    make: async (db, o) => `/conversations/${await conversation(db, o)}/operator-messages`,
    missing: async () => `${await missing()}/operator-messages`,
    body: { content: "Hello from the shop" },
  },
  takeOverConversation: {
    make: async (db, o) => `/conversations/${await conversation(db, o)}/takeover`,
    missing: async () => `${await missing()}/takeover`,
  },
  releaseConversation: {
    make: async (db, o) => `/conversations/${await conversation(db, o)}/release`,
    missing: async () => `${await missing()}/release`,
  },
  closeConversation: {
    make: async (db, o) => `/conversations/${await conversation(db, o)}/close`,
    missing: async () => `${await missing()}/close`,
  },
};
