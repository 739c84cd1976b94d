"use client";

import { useRef } from "react";
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ErrorBox, type ConsoleError } from "../_components/field-errors";
import { QueryState } from "../_components/query-state";
import { useTRPC } from "../_components/trpc-provider";
import { PaymentsTable } from "./payments-table";
import { TableWrap } from "../_components/table-wrap";
import { LoadMoreButton } from "../_components/load-more";

const STATE_TEXT: Record<string, string> = {
  ok: "Balance is healthy.",
  low: "Balance is low; top up soon to avoid suspension.",
  negative: "Balance is negative: API data exchange is suspended until you top up.",
  blocked: "The wallet is blocked by the platform: API data exchange is suspended.",
  unknown: "The balance cannot be read right now; reads go on, paid operations are paused.",
};

/** Wallet: balance and state, top-up, daily spend per integration, ledger history. */
export function WalletPanel({ tenantId }: { tenantId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const wallet = useQuery(trpc.wallet.get.queryOptions({ tenantId }));
  const spend = useQuery(trpc.wallet.dailySpend.queryOptions({ tenantId }));
  const ledger = useInfiniteQuery(
    trpc.wallet.ledger.infiniteQueryOptions({ tenantId, limit: 20 }, { getNextPageParam: (last) => last.next }),
  );
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.wallet.pathKey() });
  const topUp = useMutation(trpc.wallet.topUp.mutationOptions({ onSuccess: refresh }));
  // One key per filled form: a double submit starts one payment, not two.
  const formKey = useRef<string>(crypto.randomUUID());
  const setLimit = useMutation(trpc.wallet.setDailyLimit.mutationOptions({ onSuccess: refresh }));
  const w = wallet.data;
  return (
    <>
      <h1>Wallet</h1>
      <QueryState isLoading={wallet.isLoading} error={wallet.error}>
        {w && (
          <>
            <p style={{ fontSize: "1.6rem", margin: "4px 0" }} data-testid="balance">
              {w.balance === null
                ? "—"
                : `${Number(w.balance).toLocaleString("ru-RU", { minimumFractionDigits: 2 })} ₽`}
            </p>
            <p>
              <span className={`badge ${w.state}`} data-testid="wallet-state">
                {w.state}
              </span>{" "}
              exchange <strong>{w.exchange}</strong>. {STATE_TEXT[w.state]}
            </p>
            {w.canTopUp ? (
              <>
                <h2>Top up</h2>
                <form
                  className="stack"
                  onSubmit={(e) => {
                    e.preventDefault();
                    const f = new FormData(e.currentTarget);
                    topUp.mutate(
                      { tenantId, amount: String(f.get("amount")), idempotencyKey: formKey.current },
                      {
                        onSuccess: (r) => {
                          formKey.current = crypto.randomUUID();
                          if (r.confirmationUrl) window.location.assign(r.confirmationUrl);
                        },
                      },
                    );
                  }}
                >
                  <label>
                    Amount, RUB <span className="hint">100.00 to 1,000,000.00</span>
                    <input name="amount" inputMode="decimal" required placeholder="1500.00" />
                  </label>
                  <p className="hint">
                    You pay on the page of {w.provider.label}; the wallet is credited once the payment is confirmed.
                  </p>
                  <ErrorBox error={topUp.error as ConsoleError | null} />
                  <button type="submit" disabled={topUp.isPending || topUp.isSuccess}>
                    {topUp.isPending || topUp.isSuccess ? "Going to the payment page…" : "Top up"}
                  </button>
                </form>
              </>
            ) : (
              <p className="hint">Topping up needs the topup_wallet right.</p>
            )}
          </>
        )}
      </QueryState>
      <PaymentsTable tenantId={tenantId} />
      <h2>Daily spend per integration</h2>
      <QueryState
        isLoading={spend.isLoading}
        error={spend.error}
        empty={spend.data?.length === 0}
        emptyText="No integrations yet."
      >
        <TableWrap label="Daily spend per integration">
          <table>
            <thead>
              <tr>
                <th>Integration</th>
                <th>Spent today, ₽</th>
                <th>Daily limit, ₽</th>
              </tr>
            </thead>
            <tbody>
              {spend.data?.map((s) => (
                <tr key={s.integrationId}>
                  <td>{s.name}</td>
                  <td>{s.used}</td>
                  <td>
                    <form
                      className="row"
                      onSubmit={(e) => {
                        e.preventDefault();
                        const v = String(new FormData(e.currentTarget).get("limit") ?? "").trim();
                        setLimit.mutate({ tenantId, integrationId: s.integrationId, limit: v || null });
                      }}
                    >
                      <input
                        name="limit"
                        defaultValue={s.limit ?? ""}
                        placeholder="no limit"
                        aria-label={`Daily limit for ${s.name}`}
                        inputMode="decimal"
                        style={{ width: 110 }}
                      />
                      <button type="submit" className="secondary" disabled={setLimit.isPending}>
                        Save
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </QueryState>
      <ErrorBox error={setLimit.error as ConsoleError | null} />
      <h2>History</h2>
      <QueryState
        isLoading={ledger.isLoading}
        error={ledger.error}
        empty={ledger.data?.pages[0]?.entries.length === 0}
        emptyText="No wallet changes yet."
      >
        <TableWrap label="History">
          <table>
            <thead>
              <tr>
                <th>When</th>
                <th>Kind</th>
                <th>Amount, ₽</th>
                <th>Held, ₽</th>
                <th>Balance after, ₽</th>
                <th>By</th>
                <th>Note</th>
              </tr>
            </thead>
            <tbody>
              {ledger.data?.pages
                .flatMap((p) => p.entries)
                .map((e) => (
                  <tr key={e.id}>
                    <td>{new Date(e.createdAt).toLocaleString()}</td>
                    <td>{e.kind}</td>
                    <td>{e.amount}</td>
                    <td>{e.hold === "0.00" ? "" : e.hold}</td>
                    <td>{e.balanceAfter}</td>
                    <td>{e.actor}</td>
                    <td>{e.description ?? ""}</td>
                  </tr>
                ))}
            </tbody>
          </table>
        </TableWrap>
        <LoadMoreButton query={ledger} />
      </QueryState>
    </>
  );
}
