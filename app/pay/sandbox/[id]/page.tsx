import { notFound } from "next/navigation";
import { sandboxCheckoutView } from "@/server/payments-door/sandbox-checkout";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sandbox checkout (test payment)", robots: { index: false } };

/** The sandbox provider's checkout page: a test payment, no money moves. */
export default async function SandboxCheckoutPage({ params }: { params: Promise<{ id: string }> }) {
  const view = await sandboxCheckoutView((await params).id);
  if (!view) notFound();
  const open = view.status === "pending";
  return (
    <main style={{ maxWidth: 480, margin: "48px auto", padding: 24, border: "3px dashed #b45309", borderRadius: 8 }}>
      <p role="note" style={{ background: "#fef3c7", padding: 8, fontWeight: 700, margin: 0 }}>
        TEST PAYMENT: sandbox provider, no money moves and no card is charged.
      </p>
      <h1>Sandbox checkout</h1>
      <p>
        Wallet top-up of <strong data-testid="sandbox-amount">{view.amount} RUB</strong>
      </p>
      {open ? (
        <form method="post" action={`/pay/sandbox/${view.paymentId}/decide`} style={{ display: "flex", gap: 12 }}>
          <button type="submit" name="outcome" value="pay">
            Pay
          </button>
          <button type="submit" name="outcome" value="decline">
            Decline
          </button>
        </form>
      ) : (
        <p>
          This payment is already {view.status}. <a href={view.returnUrl}>Back to the console</a>
        </p>
      )}
    </main>
  );
}
