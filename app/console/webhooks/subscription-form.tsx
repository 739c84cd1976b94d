"use client";

import { EVENT_TYPES } from "@/server/webhook-transport/event-catalog";
import { ErrorBox, parseList, type ConsoleError } from "../_components/field-errors";

/** What the create and edit forms send (the API's WebhookCreate fields). */
export interface SubscriptionFields {
  url: string;
  events: string[];
  include_pii: boolean;
  description: string | null;
}

const FAMILIES = [...new Set(EVENT_TYPES.map((t) => `${t.split(".")[0]}.*`))];

/**
 * The subscription form shared by create and edit. Field errors come back from the server as `errors[]`
 * with pointers such as `/url` or `/events/1` (the second line of the events box) and are listed under it.
 */
export function SubscriptionForm({
  initial,
  submitLabel,
  pending,
  error,
  onSubmit,
  onCancel,
}: {
  initial?: SubscriptionFields;
  submitLabel: string;
  pending: boolean;
  error: ConsoleError | null;
  onSubmit: (fields: SubscriptionFields) => void;
  onCancel?: () => void;
}) {
  return (
    <form
      className="stack"
      onSubmit={(e) => {
        e.preventDefault();
        const f = new FormData(e.currentTarget);
        onSubmit({
          url: String(f.get("url") ?? "").trim(),
          events: parseList(String(f.get("events") ?? "")) ?? [],
          include_pii: f.get("include_pii") === "on",
          description: String(f.get("description") ?? "").trim() || null,
        });
      }}
    >
      <label>
        URL <span className="hint">https on port 443 with a host name; private addresses are refused</span>
        <input
          name="url"
          type="url"
          required
          maxLength={2048}
          defaultValue={initial?.url}
          placeholder="https://crm.example.com/hooks/platform"
        />
      </label>
      <label>
        Events <span className="hint">exact types or family patterns, one per line: {FAMILIES.join(", ")}</span>
        <textarea
          name="events"
          rows={3}
          required
          defaultValue={initial?.events.join("\n")}
          placeholder={"lead.*\nconversation.handoff_requested"}
        />
      </label>
      <label className="check">
        <input name="include_pii" type="checkbox" defaultChecked={initial?.include_pii} />
        <span>Include personal data</span>
        <span className="hint">only when every event is of lead.*, contact.* or conversation.*</span>
      </label>
      <label>
        Description <span className="hint">optional, up to 200 characters</span>
        <input name="description" maxLength={200} defaultValue={initial?.description ?? ""} />
      </label>
      <ErrorBox error={error} />
      <div className="row">
        <button type="submit" disabled={pending}>
          {pending ? "Saving…" : submitLabel}
        </button>
        {onCancel && (
          <button type="button" className="secondary" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
