"use client";

import { useMutation } from "@tanstack/react-query";
import { fieldMessage, FieldMessage, type ConsoleError } from "../_components/field-errors";
import { useTRPC } from "../_components/trpc-provider";

/** A channel as Settings lists it (server: listTenantChannels). */
export interface ChannelRowData {
  id: string;
  type: string;
  name: string;
  integrationName: string | null;
  aiDailyLimit: number;
  aiEnabled: boolean;
}

/** One channel's AI settings: replies a day (0 to 10,000) and on/off, saved on their own. */
export function ChannelAiRow({
  tenantId,
  channel: c,
  canEdit,
  onSaved,
}: {
  tenantId: string;
  channel: ChannelRowData;
  canEdit: boolean;
  onSaved: () => void;
}) {
  const trpc = useTRPC();
  const save = useMutation(trpc.settings.setChannelAi.mutationOptions({ onSuccess: onSaved }));
  // An api channel is named after its integration when made; the integration may have been renamed since.
  const label = c.integrationName && !c.name.includes(c.integrationName) ? `${c.name} (${c.integrationName})` : c.name;
  const limitError = fieldMessage(save.error as ConsoleError | null, "/ai_daily_limit", "/aiDailyLimit");
  const other = save.error && !limitError ? save.error.message : null;
  const errorId = `channel-${c.id}-error`;
  return (
    <tr data-testid={`channel-${c.id}`}>
      <td>{c.type}</td>
      <td>{label}</td>
      {canEdit ? (
        <td colSpan={2}>
          <form
            className="row"
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              const f = new FormData(e.currentTarget);
              const text = String(f.get("limit") ?? "").trim();
              save.mutate({
                tenantId,
                channelId: c.id,
                aiDailyLimit: text === "" ? Number.NaN : Number(text),
                aiEnabled: f.get("enabled") === "on",
              });
            }}
          >
            <input
              name="limit"
              type="number"
              min={0}
              max={10000}
              step={1}
              defaultValue={c.aiDailyLimit}
              aria-label={`AI replies a day for ${label}`}
              aria-invalid={Boolean(limitError)}
              aria-describedby={errorId}
              style={{ width: 110 }}
            />
            <label style={{ display: "flex", gap: 6, alignItems: "center", fontWeight: 400 }}>
              <input name="enabled" type="checkbox" defaultChecked={c.aiEnabled} aria-label={`AI on for ${label}`} />
              AI on
            </label>
            <button type="submit" className="secondary" disabled={save.isPending}>
              Save
            </button>
            {save.isSuccess && <span className="hint">Saved</span>}
            <FieldMessage id={errorId} message={limitError ?? other} />
          </form>
        </td>
      ) : (
        <>
          <td>{c.aiDailyLimit}</td>
          <td>{c.aiEnabled ? "on" : "off"}</td>
        </>
      )}
    </tr>
  );
}
