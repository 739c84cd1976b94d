import { env, type Env } from "@/server/env";
import type { PaymentProvider } from "./provider";
import { sandboxProvider } from "./sandbox-provider";
import { stripeProvider } from "./stripe-provider";
import { yookassaProvider } from "./yookassa-provider";

const made = new WeakMap<Env, PaymentProvider>();

/**
 * The provider `PAYMENT_PROVIDER` chose (server/env.ts validated its settings at start), made once per
 * configuration.
 */
export function paymentProvider(): PaymentProvider {
  const e = env();
  let p = made.get(e);
  if (!p) {
    const c = e.payment;
    p = c.provider === "yookassa" ? yookassaProvider(c) : c.provider === "stripe" ? stripeProvider(c) : sandboxProvider;
    made.set(e, p);
  }
  return p;
}

/**
 * The provider that takes payments of a mode: the configured one ({@link paymentProvider}) for live money;
 * the built-in sandbox for test mode, whatever is configured (issue 69: test top-ups credit only the
 * sandbox wallet, and a real provider never sees test mode).
 */
export function paymentProviderFor(livemode: boolean): PaymentProvider {
  return livemode ? paymentProvider() : sandboxProvider;
}
