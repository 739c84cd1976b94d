"use client";

import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { QueryState } from "../_components/query-state";
import { useTRPC } from "../_components/trpc-provider";
import { TableWrap } from "../_components/table-wrap";

/** The tenant's top-up payments, newest first: amount, provider, state, when, who. */
export function PaymentsTable({ tenantId }: { tenantId: string }) {
  const trpc = useTRPC();
  const list = useQuery(trpc.wallet.payments.queryOptions({ tenantId, limit: 50 }));
  return (
    <>
      <h2>Payments</h2>
      <QueryState
        isLoading={list.isLoading}
        error={list.error}
        empty={list.data?.length === 0}
        emptyText="No top-up payments yet."
      >
        <TableWrap label="Payments">
          <table data-testid="payments">
            <thead>
              <tr>
                <th>Started</th>
                <th>Amount, ₽</th>
                <th>Provider</th>
                <th>Status</th>
                <th>Settled</th>
                <th>By</th>
              </tr>
            </thead>
            <tbody>
              {list.data?.map((p) => (
                <tr key={p.id}>
                  <td>
                    <Link href={`/console/wallet/payments/${p.id}?tenant=${tenantId}`}>
                      {new Date(p.createdAt).toLocaleString()}
                    </Link>
                  </td>
                  <td>{p.amount}</td>
                  <td>{p.provider}</td>
                  <td>
                    <span className={`badge ${p.status}`}>{p.status}</span>
                    {p.confirmationUrl && (
                      <>
                        {" "}
                        <a href={p.confirmationUrl}>pay</a>
                      </>
                    )}
                  </td>
                  <td>{p.settledAt ? new Date(p.settledAt).toLocaleString() : ""}</td>
                  <td>{p.by}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </QueryState>
    </>
  );
}
