/**
 * Money on the wire is `{amount: "12.34", currency}` (spec "Money"), in the database integer minor
 * units as bigint, never a float. All currencies used here (RUB, GBP, IDR) are written with 2 decimals.
 */
export interface Money {
  amount: string;
  currency: string;
}

/** Minor units → decimal string: 1234n → "12.34", -5n → "-0.05". */
export function formatMinor(minor: bigint): string {
  const neg = minor < 0n;
  const abs = neg ? -minor : minor;
  const whole = abs / 100n;
  const frac = (abs % 100n).toString().padStart(2, "0");
  return `${neg ? "-" : ""}${whole}.${frac}`;
}

/** Money object from minor units. */
export function money(minor: bigint, currency = "RUB"): Money {
  return { amount: formatMinor(minor), currency };
}

/**
 * Decimal string → minor units: "12.34" → 1234n, "5" → 500n.
 * @throws RangeError when the text is not a positive-or-zero decimal with at most 2 fraction digits.
 */
export function parseAmount(text: string): bigint {
  const m = /^(\d{1,15})(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!m) throw new RangeError(`"${text}" is not an amount such as 12.34`);
  return BigInt(m[1]) * 100n + BigInt((m[2] ?? "0").padEnd(2, "0"));
}

/**
 * Signed decimal string → minor units: "-50.00" → -5000n, "12.34" → 1234n.
 * @throws RangeError when the text is not a decimal with an optional minus and at most 2 fraction digits.
 */
export function parseSignedAmount(text: string): bigint {
  const t = text.trim();
  return t.startsWith("-") ? -parseAmount(t.slice(1)) : parseAmount(t);
}

/**
 * The currency of a cell (spec "Money": RUB on the RU cell, GBP on EN, IDR on ID): what amounts that the
 * platform sums without a currency of their own (intake's revenue) are stated in.
 */
export const CELL_CURRENCY: Record<"ru" | "en" | "id", string> = { ru: "RUB", en: "GBP", id: "IDR" };
