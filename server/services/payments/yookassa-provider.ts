import { formatMinor } from "@/server/lib/money";
import {
  malformedNotification,
  minorOf,
  providerTimeoutMs,
  providerUnavailable,
  type PaymentProvider,
  type ProviderPayment,
} from "./provider";

/** A YooKassa payment object, the fields we read (https://yookassa.ru/developers/api#payment_object). */
interface YooPayment {
  id?: unknown;
  status?: unknown;
  amount?: { value?: unknown; currency?: unknown };
  confirmation?: { confirmation_url?: unknown };
  metadata?: { payment_id?: unknown } | null;
}

const STATUS: Record<string, ProviderPayment["status"]> = {
  pending: "pending",
  waiting_for_capture: "pending", // capture is true, so this passes to succeeded by itself
  succeeded: "succeeded",
  canceled: "canceled",
};

/**
 * YooKassa (RUB) through its HTTP API v3 with plain fetch: `POST /v3/payments` (Basic auth shop id and
 * secret key, `Idempotence-Key`, redirect confirmation, `capture: true`) and `GET /v3/payments/{id}`.
 * A notification carries no signature, so its body is trusted for nothing but the payment id: the
 * payment is always read back from the API before anything is credited.
 */
export function yookassaProvider(config: { shopId: string; secretKey: string; apiUrl: string }): PaymentProvider {
  const auth = `Basic ${Buffer.from(`${config.shopId}:${config.secretKey}`).toString("base64")}`;

  async function request(method: "GET" | "POST", path: string, body?: unknown, key?: string): Promise<YooPayment> {
    let res: Response;
    try {
      res = await fetch(`${config.apiUrl}${path}`, {
        method,
        headers: {
          authorization: auth,
          ...(body ? { "content-type": "application/json" } : {}),
          ...(key ? { "idempotence-key": key } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(providerTimeoutMs()),
        redirect: "error",
      });
    } catch (err) {
      throw providerUnavailable("yookassa", (err as Error).name === "TimeoutError" ? "timed out" : "unreachable");
    }
    if (!res.ok)
      throw providerUnavailable("yookassa", `HTTP ${res.status} on ${method} ${path.split("/", 3).join("/")}`);
    try {
      return (await res.json()) as YooPayment;
    } catch {
      throw providerUnavailable("yookassa", "the answer is not JSON");
    }
  }

  function view(p: YooPayment): ProviderPayment {
    const amountMinor = minorOf(p.amount?.value);
    const status = typeof p.status === "string" ? STATUS[p.status] : undefined;
    if (typeof p.id !== "string" || amountMinor === null || !status || typeof p.amount?.currency !== "string")
      throw providerUnavailable("yookassa", "the payment object lacks id, status or amount");
    const ours = p.metadata?.payment_id;
    return {
      providerPaymentId: p.id,
      status,
      amountMinor,
      currency: p.amount.currency.toUpperCase(),
      ourPaymentId: typeof ours === "string" ? ours : null,
    };
  }

  return {
    id: "yookassa",
    label: "YooKassa (bank card, SBP, wallets)",
    async createCheckout(_db, input) {
      const p = await request(
        "POST",
        "/v3/payments",
        {
          amount: { value: formatMinor(input.amountMinor), currency: "RUB" },
          capture: true,
          confirmation: { type: "redirect", return_url: input.returnUrl },
          description: input.description.slice(0, 128),
          metadata: { payment_id: input.paymentId, tenant_id: input.tenantId },
        },
        input.idempotencyKey,
      );
      const url = p.confirmation?.confirmation_url;
      if (typeof p.id !== "string" || typeof url !== "string" || !/^https?:\/\//.test(url))
        throw providerUnavailable("yookassa", "the payment has no confirmation_url");
      return { providerPaymentId: p.id, confirmationUrl: url };
    },
    verifyNotification(rawBody) {
      let body: { type?: unknown; event?: unknown; object?: { id?: unknown } };
      try {
        body = JSON.parse(rawBody) as typeof body;
      } catch {
        throw malformedNotification("the body is not JSON");
      }
      const id = body?.object?.id;
      if (body?.type !== "notification" || typeof id !== "string" || !/^[\w-]{1,64}$/.test(id))
        throw malformedNotification("expected {type: notification, event, object: {id}}");
      if (typeof body.event !== "string" || !body.event.startsWith("payment.")) return null; // refunds, payouts
      return { eventId: null, providerPaymentId: id, payment: null };
    },
    async readPayment(_db, providerPaymentId) {
      return view(await request("GET", `/v3/payments/${encodeURIComponent(providerPaymentId)}`));
    },
  };
}
