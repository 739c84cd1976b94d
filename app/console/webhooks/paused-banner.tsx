"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { Webhook } from "@/server/schemas/webhooks";
import { ErrorBox, type ConsoleError } from "../_components/field-errors";
import { useTRPC } from "../_components/trpc-provider";

/**
 * The banner over the subscriptions of an integration for each one the platform paused because every
 * delivery failed for 3 days (`paused_reason: failing`, issue 75 item 4), with "Resume": the tRPC
 * mutation `webhooks.setStatus` to `active`, which clears the reason and sends the waiting deliveries at
 * once. A subscription paused by staff or the API shows no banner (its row's Resume is enough).
 */
export function PausedBanners({
  tenantId,
  integrationId,
  webhooks,
}: {
  tenantId: string;
  integrationId: string;
  webhooks: readonly Webhook[];
}) {
  const failing = webhooks.filter((w) => w.status === "paused" && w.paused_reason === "failing");
  return (
    <>
      {failing.map((w) => (
        <PausedBanner key={w.id} tenantId={tenantId} integrationId={integrationId} webhook={w} />
      ))}
    </>
  );
}

function PausedBanner({
  tenantId,
  integrationId,
  webhook,
}: {
  tenantId: string;
  integrationId: string;
  webhook: Webhook;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const resume = useMutation(
    trpc.webhooks.setStatus.mutationOptions({
      onSuccess: () => qc.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey({ tenantId, integrationId }) }),
    }),
  );
  return (
    <section className="paused-banner" role="alert" aria-label={`Paused: ${webhook.url}`}>
      <div>
        <strong>Paused</strong>
        <span>
          Every delivery to <code>{webhook.url}</code> has failed for 3 days, so the platform paused this subscription.
          Its deliveries wait without spending retries; once your receiver answers again, resume it and they go out at
          once. Deliveries older than 30 days are given up.
        </span>
      </div>
      <div className="test-banner-actions">
        <button
          type="button"
          disabled={resume.isPending}
          onClick={() => resume.mutate({ tenantId, subscriptionId: webhook.id, status: "active" })}
        >
          {resume.isPending ? "Resuming…" : "Resume"}
        </button>
        <ErrorBox error={resume.error as ConsoleError | null} />
      </div>
    </section>
  );
}
