"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "../_components/confirm-dialog";
import { useTRPC } from "../_components/trpc-provider";

/**
 * The confirmation of removing a member: besides the sign-out, it lists the working keys the member issued
 * in this tenant, which the removal revokes (issue 76 item 1), read when the dialog opens.
 */
export function RemoveMemberDialog({
  tenantId,
  memberId,
  email,
  disabled,
  onConfirm,
}: {
  tenantId: string;
  memberId: string;
  email: string;
  disabled: boolean;
  onConfirm: () => void;
}) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const keys = useQuery({
    ...trpc.team.keysRevokedOnRemoval.queryOptions({ tenantId, memberId }),
    enabled: open,
    staleTime: 0,
  });
  return (
    <ConfirmDialog
      open={open}
      onOpenChange={setOpen}
      trigger={
        <button type="button" className="danger" disabled={disabled}>
          Remove
        </button>
      }
      title={`Remove ${email} from the team?`}
      description="They lose access to this tenant at once; tenants they also belong to stay open to them."
      confirmLabel="Remove member"
      onConfirm={onConfirm}
    >
      <div data-testid="keys-revoked-on-removal">
        {keys.isLoading ? (
          <p className="hint">Looking for the API keys they issued…</p>
        ) : keys.error ? (
          <p role="alert">The keys they issued could not be listed: {keys.error.message}</p>
        ) : keys.data?.length ? (
          <>
            <p>These API keys they issued are revoked with the removal; requests with them answer 401 at once:</p>
            <ul className="plain">
              {keys.data.map((k) => (
                <li key={k.keyId}>
                  <code>{k.keyId}</code> {k.name ?? <span className="hint">unnamed</span>}{" "}
                  <span className="hint">
                    ({k.mode}, integration {k.integrationName})
                  </span>
                </li>
              ))}
            </ul>
          </>
        ) : (
          <p className="hint">They issued no working API key in this tenant.</p>
        )}
      </div>
    </ConfirmDialog>
  );
}
