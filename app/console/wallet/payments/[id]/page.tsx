import { requireConsoleSession } from "@/server/auth/console-session";
import { Shell } from "../../../_components/shell";
import { PaymentStatus } from "./payment-status";

export const dynamic = "force-dynamic";

/** Where the payer returns from the provider's page: checks the payment until it is settled. */
export default async function PaymentReturnPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ tenant?: string }>;
}) {
  const { id } = await params;
  const { tenant } = await searchParams;
  const session = await requireConsoleSession(
    `/console/wallet/payments/${encodeURIComponent(id)}${tenant ? `?tenant=${encodeURIComponent(tenant)}` : ""}`,
    tenant,
  );
  return (
    <Shell session={session} current="/console/wallet">
      {session.tenantId && <PaymentStatus tenantId={session.tenantId} paymentId={id} />}
    </Shell>
  );
}
