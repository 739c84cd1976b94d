"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "../_components/confirm-dialog";
import { fieldMessage, FieldMessage, type ConsoleError } from "../_components/field-errors";
import { QueryState } from "../_components/query-state";
import { useTRPC } from "../_components/trpc-provider";
import { ChannelAiRow } from "./channel-ai-row";
import { TableWrap } from "../_components/table-wrap";

/**
 * The tenant's settings: main domain (expands the site paths of cards), each channel's AI replies a day
 * and on/off, spend limits, and the CRM mode (read only). Edit controls show only with the right the
 * server checks (`canEdit`); the server refuses without it regardless.
 */
export function SettingsPanel({ tenantId }: { tenantId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const q = useQuery(trpc.settings.get.queryOptions({ tenantId }));
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.settings.get.queryKey({ tenantId }) });
  const s = q.data;
  return (
    <>
      <h1>Settings</h1>
      <QueryState isLoading={q.isLoading} error={q.error}>
        {s && (
          <>
            {!s.canEdit && (
              <p className="notice">You can see these settings; changing them needs the manage_integrations right.</p>
            )}
            <MainDomain tenantId={tenantId} current={s.mainDomain} canEdit={s.canEdit} onSaved={refresh} />
            <h2>AI seller per channel</h2>
            <p className="hint">
              AI replies a day: 0 to 10,000 per UTC day, then customers get no AI reply until tomorrow. AI off: no
              channel message is answered by the AI seller.
            </p>
            {s.channels.length === 0 ? (
              <p className="hint">No channels yet: each integration brings its API channel.</p>
            ) : (
              <TableWrap label="AI seller per channel">
                <table data-testid="channels">
                  <thead>
                    <tr>
                      <th>Type</th>
                      <th>Channel</th>
                      {s.canEdit ? (
                        <th colSpan={2}>AI replies a day, on or off</th>
                      ) : (
                        <>
                          <th>AI replies a day</th>
                          <th>AI</th>
                        </>
                      )}
                    </tr>
                  </thead>
                  <tbody>
                    {s.channels.map((c) => (
                      <ChannelAiRow key={c.id} tenantId={tenantId} channel={c} canEdit={s.canEdit} onSaved={refresh} />
                    ))}
                  </tbody>
                </table>
              </TableWrap>
            )}
            <SpendLimits tenantId={tenantId} limits={s.limits} canEdit={s.canEdit} onSaved={refresh} />
            <h2>CRM</h2>
            <p data-testid="crm-mode">
              Mode: <strong>{s.crmMode}</strong>{" "}
              <span className="hint">
                ({s.crmMode === "internal" ? "leads live in the platform's CRM" : "leads go to an external CRM"}; set by
                the platform, read only here)
              </span>
            </p>
          </>
        )}
      </QueryState>
    </>
  );
}

/** The main domain form; changing or clearing a domain that cards use asks first. */
function MainDomain({
  tenantId,
  current,
  canEdit,
  onSaved,
}: {
  tenantId: string;
  current: string | null;
  canEdit: boolean;
  onSaved: () => void;
}) {
  const trpc = useTRPC();
  const save = useMutation(trpc.settings.setMainDomain.mutationOptions({ onSuccess: onSaved }));
  const [pending, setPending] = useState<string | null>(null);
  const message = fieldMessage(save.error as ConsoleError | null, "/main_domain", "/mainDomain");
  const other = save.error && !message ? save.error.message : null;
  const submit = (value: string) => save.mutate({ tenantId, mainDomain: value || null });
  return (
    <>
      <h2>Main domain</h2>
      <p className="hint">
        Card addresses that are paths of your site (<code>/catalog/socks</code>) are sent as{" "}
        <code>https://&lt;main domain&gt;/catalog/socks</code>.
      </p>
      {canEdit ? (
        <form
          className="stack"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            const value = String(new FormData(e.currentTarget).get("mainDomain") ?? "").trim();
            // A change of an existing domain moves every card link at once: confirm it first. What is
            // plainly no host name goes straight to the server, which says what is wrong beside the field.
            const hostLike = value === "" || /^[^\s/:?#@]+\.[^\s/:?#@]+$/.test(value);
            if (current && hostLike && value.toLowerCase() !== current) setPending(value);
            else submit(value);
          }}
        >
          <label>
            Main domain <span className="hint">host name only, such as shop.example.ru</span>
            <input
              name="mainDomain"
              defaultValue={current ?? ""}
              placeholder="shop.example.ru"
              aria-invalid={Boolean(message)}
              aria-describedby="main-domain-error"
            />
            <FieldMessage id="main-domain-error" message={message ?? other} />
          </label>
          <div className="row">
            <button type="submit" disabled={save.isPending}>
              Save domain
            </button>
            {save.isSuccess && <span className="hint">Saved</span>}
          </div>
        </form>
      ) : (
        <p data-testid="main-domain">{current ?? "not set"}</p>
      )}
      <ConfirmDialog
        open={pending !== null}
        onOpenChange={(o) => !o && setPending(null)}
        title={pending ? `Change the main domain to ${pending}?` : "Clear the main domain?"}
        description={`Every card whose address is a path of your site will link to ${pending ? `https://${pending}/…` : "nowhere"} instead of https://${current}/… from the next request on.`}
        confirmLabel={pending ? "Change domain" : "Clear domain"}
        onConfirm={() => {
          submit(pending ?? "");
          setPending(null);
        }}
      />
    </>
  );
}

/** The tenant's spend limits (daily spend, maximum cost of one paid operation), saved through operations.setLimits. */
function SpendLimits({
  tenantId,
  limits,
  canEdit,
  onSaved,
}: {
  tenantId: string;
  limits: { daily_limit: { amount: string } | null; max_operation_cost: { amount: string } };
  canEdit: boolean;
  onSaved: () => void;
}) {
  const trpc = useTRPC();
  const save = useMutation(trpc.operations.setLimits.mutationOptions({ onSuccess: onSaved }));
  const err = save.error as ConsoleError | null;
  const daily = fieldMessage(err, "/dailyLimit", "/daily_limit");
  const max = fieldMessage(err, "/maxOperationCost", "/max_operation_cost");
  const other = save.error && !daily && !max ? save.error.message : null;
  return (
    <>
      <h2>Spend limits</h2>
      {canEdit ? (
        <form
          className="stack"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            const f = new FormData(e.currentTarget);
            const d = String(f.get("daily") ?? "").trim();
            save.mutate({ tenantId, dailyLimit: d || null, maxOperationCost: String(f.get("max") ?? "") });
          }}
        >
          <label>
            Daily spend limit, ₽ <span className="hint">empty = no limit</span>
            <input
              name="daily"
              defaultValue={limits.daily_limit?.amount ?? ""}
              placeholder="no limit"
              inputMode="decimal"
              aria-invalid={Boolean(daily)}
              aria-describedby="daily-limit-error"
            />
            <FieldMessage id="daily-limit-error" message={daily} />
          </label>
          <label>
            Maximum cost of one paid operation, ₽
            <input
              name="max"
              defaultValue={limits.max_operation_cost.amount}
              inputMode="decimal"
              aria-invalid={Boolean(max)}
              aria-describedby="max-cost-error"
            />
            <FieldMessage id="max-cost-error" message={max ?? other} />
          </label>
          <div className="row">
            <button type="submit" disabled={save.isPending}>
              Save limits
            </button>
            {save.isSuccess && <span className="hint">Saved</span>}
          </div>
        </form>
      ) : (
        <p data-testid="spend-limits">
          Daily: {limits.daily_limit ? `${limits.daily_limit.amount} ₽` : "no limit"}; one operation at most{" "}
          {limits.max_operation_cost.amount} ₽
        </p>
      )}
    </>
  );
}
