import { eq } from "drizzle-orm";
import { getDb } from "@/db/client";
import { payments } from "@/db/schema";
import { ApiError } from "@/server/errors";
import { formatMinor } from "@/server/lib/money";
import { handlePaymentNotification } from "@/server/services/payments/payment-settle";
import { paymentReturnUrl } from "@/server/services/payments/payments";
import { decideSandboxCheckout, SANDBOX_SIGNATURE_HEADER } from "@/server/services/payments/sandbox-provider";
import { paymentProvider } from "@/server/services/payments/providers";
import { problem } from "./notification";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What the sandbox checkout page shows; null when there is no such sandbox payment. */
export interface SandboxCheckoutView {
  paymentId: string;
  amount: string;
  status: string;
  returnUrl: string;
}

/**
 * The sandbox checkout of a payment (`/pay/sandbox/{payment_id}`), or null (not a sandbox payment). A
 * test-mode payment (`livemode` false: a top-up of the sandbox wallet) always has one; a live payment
 * only while the sandbox is the configured provider (issue 69: a real provider never sees test mode, and
 * the sandbox never pays live money next to a real provider).
 */
export async function sandboxCheckoutView(paymentId: string): Promise<SandboxCheckoutView | null> {
  if (!UUID.test(paymentId)) return null;
  const [p] = await (await getDb()).select().from(payments).where(eq(payments.id, paymentId));
  if (!p || p.provider !== "sandbox") return null;
  if (p.livemode && paymentProvider().id !== "sandbox") return null;
  return {
    paymentId,
    amount: formatMinor(p.amountMinor),
    status: p.status,
    returnUrl: paymentReturnUrl(p.tenantId, p.id),
  };
}

/**
 * `POST /pay/sandbox/{payment_id}/decide` (form field `outcome` = `pay` | `decline`): the sandbox
 * records the payer's choice on its side, then sends its signed notification through the same
 * verified path as any provider's (`handlePaymentNotification`), and the payer goes to the return
 * page (303). The return page's status check settles the payment even if that notification failed.
 */
export async function sandboxDecisionDoor(request: Request, paymentId: string): Promise<Response> {
  const view = await sandboxCheckoutView(paymentId);
  if (!view) return problem(new ApiError("not_found", "There is no sandbox payment with this id."));
  const form = await request.formData().catch(() => null);
  const outcome = form?.get("outcome");
  if (outcome !== "pay" && outcome !== "decline")
    return problem(new ApiError("bad_request", "The form field outcome must be pay or decline."));
  const db = await getDb();
  const { notification } = await decideSandboxCheckout(db, paymentId, outcome);
  await handlePaymentNotification(
    db,
    "sandbox",
    notification.body,
    new Headers({ [SANDBOX_SIGNATURE_HEADER]: notification.signature }),
  ).catch(() => "left to the status check");
  return new Response(null, { status: 303, headers: { location: view.returnUrl, "cache-control": "no-store" } });
}
