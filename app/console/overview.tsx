"use client";

import { useQuery } from "@tanstack/react-query";
import { QueryState } from "./_components/query-state";
import { useTRPC } from "./_components/trpc-provider";
import { TableWrap } from "./_components/table-wrap";

/** Tenant overview: plan and license, CRM mode, cell and base URL, quick-start lines. */
export function Overview({ tenantId }: { tenantId: string }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.tenants.overview.queryOptions({ tenantId }));
  const t = q.data;
  return (
    <QueryState isLoading={q.isLoading} error={q.error}>
      {t && (
        <>
          <h1>{t.name}</h1>
          <TableWrap label="Account">
            <table>
              <tbody>
                <tr>
                  <th scope="row">Status</th>
                  <td>
                    <span className={`badge ${t.status}`}>{t.status}</span>
                  </td>
                </tr>
                <tr>
                  <th scope="row">Plan</th>
                  <td>{t.plan}</td>
                </tr>
                <tr>
                  <th scope="row">API access</th>
                  <td>{t.apiAccess ? "included" : "not in plan"}</td>
                </tr>
                <tr>
                  <th scope="row">Licensed features</th>
                  <td>{t.features.join(", ") || "none"}</td>
                </tr>
                <tr>
                  <th scope="row">CRM mode</th>
                  <td>{t.crmMode}</td>
                </tr>
                <tr>
                  <th scope="row">Cell</th>
                  <td>{t.cell.toUpperCase()}</td>
                </tr>
                <tr>
                  <th scope="row">API base URL</th>
                  <td>
                    <code>{t.baseUrl}</code>
                  </td>
                </tr>
                <tr>
                  <th scope="row">Your rights</th>
                  <td>{t.rights.join(", ") || "none"}</td>
                </tr>
              </tbody>
            </table>
          </TableWrap>
          <h2>Quick start</h2>
          <p>Create an integration, issue a key, then:</p>
          <pre>{`export KEY=${t.testMode.on ? "sk_test" : "sk_live"}_...   # shown once when you issue it
curl -s ${t.baseUrl}/me -H "Authorization: Bearer $KEY"
curl -s "${t.baseUrl}/cards?limit=10" -H "Authorization: Bearer $KEY"`}</pre>
        </>
      )}
    </QueryState>
  );
}
