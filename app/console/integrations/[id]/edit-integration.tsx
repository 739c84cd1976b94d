"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { PII_SCOPES, ROLE_NAMES, type Scope } from "@/server/schemas/scopes";
import { ErrorBox, parseList, type ConsoleError } from "../../_components/field-errors";
import { useTRPC } from "../../_components/trpc-provider";
import { ScopeChecklist } from "../scope-checklist";

/** The settings the edit form starts from: the integration as read. */
export interface EditableIntegration {
  id: string;
  name: string;
  role: string;
  scopes: string[];
  piiCountry: string | null;
  legalBasis: string | null;
  ipAllowlist: string[] | null;
}

/**
 * Edits an integration's settings (issue 19 item 3), with the creation checks on the server. Existing keys
 * keep working and carry the new effective scopes from their next request.
 */
export function EditIntegration({
  tenantId,
  integration: i,
  ruCell,
}: {
  tenantId: string;
  integration: EditableIntegration;
  ruCell: boolean;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [scopes, setScopes] = useState<Set<Scope>>(new Set(i.scopes as Scope[]));
  const update = useMutation(
    trpc.integrations.update.mutationOptions({
      onSuccess: () => qc.invalidateQueries({ queryKey: trpc.integrations.pathKey() }),
    }),
  );
  const pii = [...scopes].some((s) => PII_SCOPES.has(s));
  return (
    <details className="edit" style={{ marginTop: 12 }}>
      <summary>Edit settings</summary>
      <form
        className="stack"
        aria-label="Edit integration"
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          update.mutate({
            tenantId,
            integrationId: i.id,
            name: String(f.get("name")),
            role: String(f.get("role")),
            scopes: [...scopes],
            piiCountry: String(f.get("piiCountry") ?? "") || null,
            legalBasis: String(f.get("legalBasis") ?? "") || null,
            ipAllowlist: parseList(String(f.get("ipAllowlist") ?? "")),
          });
        }}
      >
        <label>
          Name
          <input name="name" required maxLength={100} defaultValue={i.name} />
        </label>
        <label>
          Role
          <select name="role" defaultValue={i.role}>
            {ROLE_NAMES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <ScopeChecklist value={scopes} onChange={setScopes} />
        {ruCell && pii && (
          <p className="notice" role="note">
            Personal-data scopes on the RU cell need recipient country RU, the legal basis of transfer and an IP
            allowlist of single addresses or networks no wider than IPv4 /24 or IPv6 /56.
          </p>
        )}
        <label>
          Recipient country
          <input name="piiCountry" maxLength={2} placeholder="RU" defaultValue={i.piiCountry ?? ""} />
        </label>
        <label>
          Legal basis of transfer
          <input name="legalBasis" maxLength={500} defaultValue={i.legalBasis ?? ""} />
        </label>
        <label>
          IP allowlist <span className="hint">one per line; empty = any address</span>
          <textarea name="ipAllowlist" rows={3} defaultValue={(i.ipAllowlist ?? []).join("\n")} />
        </label>
        <ErrorBox error={update.error as ConsoleError | null} />
        {update.isSuccess && (
          <p className="notice" role="status">
            Settings saved. Existing keys carry the new effective scopes from their next request.
          </p>
        )}
        <button type="submit" disabled={update.isPending || scopes.size === 0}>
          {update.isPending ? "Saving…" : "Save settings"}
        </button>
      </form>
    </details>
  );
}
