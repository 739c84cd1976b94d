"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { ConfirmDialog } from "./confirm-dialog";
import { ErrorBox, type ConsoleError } from "./field-errors";
import { useTRPC } from "./trpc-provider";

/**
 * The banner over every console page while Test mode is on (issue 69 item 6): says that the page shows
 * the tenant's sandbox, not live data, and offers "Reset test data" (confirmed in a dialog; the tRPC
 * mutation `sandbox.reset`) to staff with the right to it.
 */
export function TestDataBanner({ tenantId, canReset }: { tenantId: string; canReset: boolean }) {
  return (
    <section className="test-banner" aria-label="Test data">
      <div>
        <strong>Test data</strong>
        <span>
          You are viewing this tenant&apos;s sandbox: test keys, test webhooks and deliveries, the test wallet and
          operations, the test request log. Nothing here touches live data or real money.
        </span>
      </div>
      {canReset && <ResetTestData tenantId={tenantId} />}
    </section>
  );
}

/** "Reset test data": after a confirmation, the sandbox is emptied and seeded again; the page then reloads its data. */
function ResetTestData({ tenantId }: { tenantId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const reset = useMutation(
    trpc.sandbox.reset.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries();
        router.refresh();
      },
    }),
  );
  return (
    <div className="test-banner-actions">
      <ConfirmDialog
        trigger={
          <button type="button" className="secondary" disabled={reset.isPending}>
            {reset.isPending ? "Resetting…" : "Reset test data"}
          </button>
        }
        title="Reset test data?"
        description="Every sandbox row of this tenant (test subscriptions and deliveries, test operations and payments, the test request log, the test wallet) is deleted and fresh sample data is seeded. Test keys keep working. Live data is not touched."
        confirmLabel="Reset test data"
        onConfirm={() => reset.mutate({ tenantId })}
      />
      {reset.isSuccess && (
        <span role="status" className="hint">
          Test data reset: the sandbox holds fresh sample data.
        </span>
      )}
      <ErrorBox error={reset.error as ConsoleError | null} />
    </div>
  );
}
