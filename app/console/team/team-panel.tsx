"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorBox, type ConsoleError } from "../_components/field-errors";
import { QueryState } from "../_components/query-state";
import { useTRPC } from "../_components/trpc-provider";
import type { Right } from "@/server/schemas/scopes";
import { pickedRights, RightsPicker } from "./rights-picker";
import { TableWrap } from "../_components/table-wrap";
import { ConfirmDialog } from "../_components/confirm-dialog";
import { RemoveMemberDialog } from "./remove-member-dialog";

/** Team: members with rights; with `manage_team`: invite, pending invitations, change rights, remove. */
export function TeamPanel({ tenantId }: { tenantId: string }) {
  const trpc = useTRPC();
  const overview = useQuery(trpc.tenants.overview.queryOptions({ tenantId }));
  const members = useQuery(trpc.team.members.queryOptions({ tenantId }));
  const held = overview.data?.rights ?? [];
  const canManage = held.includes("manage_team");
  return (
    <>
      <h1>Team</h1>
      {canManage && <InviteForm tenantId={tenantId} held={held} />}
      <h2>Members</h2>
      <QueryState isLoading={members.isLoading} error={members.error} empty={members.data?.length === 0}>
        <TableWrap label="Members">
          <table>
            <thead>
              <tr>
                <th scope="col">Member</th>
                <th scope="col">Role</th>
                <th scope="col">Rights</th>
                {canManage && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {members.data?.map((m) => (
                <MemberRow key={m.id} tenantId={tenantId} member={m} held={held} canManage={canManage} />
              ))}
            </tbody>
          </table>
        </TableWrap>
      </QueryState>
      {canManage ? (
        <Invitations tenantId={tenantId} />
      ) : (
        overview.data && (
          <p className="hint">Inviting and changing members needs the manage_team right in this tenant.</p>
        )
      )}
    </>
  );
}

function InviteForm({ tenantId, held }: { tenantId: string; held: readonly string[] }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [sent, setSent] = useState<{ email: string; url: string | null } | null>(null);
  const [copied, setCopied] = useState(false);
  const invite = useMutation(
    trpc.team.invite.mutationOptions({
      onSuccess: (r) => {
        setSent({ email: r.email, url: r.url });
        setCopied(false);
        void qc.invalidateQueries({ queryKey: trpc.team.invitations.queryKey({ tenantId }) });
      },
    }),
  );
  return (
    <section aria-labelledby="invite-h">
      <h2 id="invite-h">Invite a member</h2>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          const form = e.currentTarget;
          const email = String(new FormData(form).get("email"));
          invite.mutate(
            { tenantId, email, rights: pickedRights(form, "rights", held, []) as Right[] },
            { onSuccess: () => form.reset() },
          );
        }}
      >
        <label>
          Email
          <input name="email" type="email" required autoComplete="off" />
        </label>
        <RightsPicker name="rights" held={held} initial={[]} />
        <ErrorBox error={invite.error as ConsoleError | null} />
        <button type="submit" disabled={invite.isPending}>
          {invite.isPending ? "Inviting…" : "Invite"}
        </button>
      </form>
      {sent && !sent.url && (
        <p className="notice" role="status" style={{ marginTop: 12 }}>
          Invitation mailed to {sent.email}. The link goes to that address only; it works once, for 7 days.
        </p>
      )}
      {sent?.url && (
        <div className="secret" role="status" style={{ marginTop: 12 }}>
          <p style={{ marginTop: 0 }}>
            <strong>
              This server sends no mail (development or demo without SMTP_URL), so the link is shown here, once.
            </strong>{" "}
            Whoever opens it can create the console account of {sent.email}: pass it to that person only. With mail
            configured, and always in production, it is mailed to the invited address and never shown.
          </p>
          <p>
            <input readOnly value={sent.url} aria-label="Invitation link" style={{ width: "100%" }} />
          </p>
          <button
            type="button"
            onClick={async () => {
              await navigator.clipboard?.writeText(sent.url!).catch(() => undefined);
              setCopied(true);
            }}
          >
            {copied ? "Copied" : "Copy link"}
          </button>
        </div>
      )}
    </section>
  );
}

type Member = {
  id: string;
  email: string;
  name: string;
  role: string;
  rights: string[];
  you: boolean;
};

function MemberRow({
  tenantId,
  member: m,
  held,
  canManage,
}: {
  tenantId: string;
  member: Member;
  held: readonly string[];
  canManage: boolean;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [editing, setEditing] = useState(false);
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.team.members.queryKey({ tenantId }) });
  const setRights = useMutation(
    trpc.team.setRights.mutationOptions({
      onSuccess: () => {
        setEditing(false);
        void refresh();
      },
    }),
  );
  const remove = useMutation(trpc.team.remove.mutationOptions({ onSuccess: refresh }));
  const editable = canManage && !m.you && m.role !== "owner";
  return (
    <tr data-testid={`member-${m.email}`}>
      <td>
        {m.name} <span className="hint">{m.email}</span>
        {m.you && <span className="hint"> (you)</span>}
      </td>
      <td>{m.role}</td>
      <td>
        {editing ? (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              setRights.mutate({
                tenantId,
                memberId: m.id,
                rights: pickedRights(e.currentTarget, "member-rights", held, m.rights) as Right[],
              });
            }}
          >
            <RightsPicker name="member-rights" held={held} initial={m.rights} />
            <ErrorBox error={setRights.error as ConsoleError | null} />
            <button type="submit" disabled={setRights.isPending}>
              Save rights
            </button>{" "}
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </form>
        ) : (
          m.rights.join(", ") || <span className="hint">none (read only)</span>
        )}
      </td>
      {canManage && (
        <td>
          {editable && !editing && (
            <>
              <button type="button" onClick={() => setEditing(true)}>
                Change rights
              </button>{" "}
              <RemoveMemberDialog
                tenantId={tenantId}
                memberId={m.id}
                email={m.email}
                disabled={remove.isPending}
                onConfirm={() => remove.mutate({ tenantId, memberId: m.id })}
              />
              <ErrorBox error={remove.error as ConsoleError | null} />
            </>
          )}
        </td>
      )}
    </tr>
  );
}

function Invitations({ tenantId }: { tenantId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const list = useQuery(trpc.team.invitations.queryOptions({ tenantId }));
  const revoke = useMutation(
    trpc.team.revokeInvitation.mutationOptions({
      onSuccess: () => qc.invalidateQueries({ queryKey: trpc.team.invitations.queryKey({ tenantId }) }),
    }),
  );
  return (
    <>
      <h2>Invitations</h2>
      <QueryState
        isLoading={list.isLoading}
        error={list.error}
        empty={list.data?.length === 0}
        emptyText="No pending invitations."
      >
        <TableWrap label="Invitations">
          <table>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Rights</th>
                <th scope="col">State</th>
                <th scope="col">Expires</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data?.map((i) => (
                <tr key={i.id} data-testid={`invitation-${i.email}`}>
                  <td>{i.email}</td>
                  <td>{i.rights.join(", ") || "none"}</td>
                  <td>{i.state}</td>
                  <td>{new Date(i.expiresAt).toLocaleString()}</td>
                  <td>
                    {i.state === "pending" && (
                      <ConfirmDialog
                        trigger={
                          <button type="button" className="danger">
                            Revoke
                          </button>
                        }
                        title={`Revoke the invitation of ${i.email}?`}
                        description="Its link stops working."
                        confirmLabel="Revoke invitation"
                        onConfirm={() => revoke.mutate({ tenantId, invitationId: i.id })}
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
        <ErrorBox error={revoke.error as ConsoleError | null} />
      </QueryState>
    </>
  );
}
