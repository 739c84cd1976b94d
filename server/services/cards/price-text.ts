const LOCALES: Record<string, string> = { ru: "ru-RU", en: "en-GB", id: "id-ID" };

/**
 * Price text derived from a product price when the card has none (spec "Card": price_text), in the
 * cell's locale: 199000n RUB on RU → "1 990 ₽"; kopecks shown only when present. At most 40 chars.
 */
export function formatPrice(minor: bigint, currency: string, cell: string): string {
  const whole = minor % 100n === 0n;
  const f = new Intl.NumberFormat(LOCALES[cell] ?? "en-GB", {
    style: "currency",
    currency,
    minimumFractionDigits: whole ? 0 : 2,
    maximumFractionDigits: whole ? 0 : 2,
  });
  return f.format(Number(minor) / 100).replace(/\u00a0|\u202f/g, " ").slice(0, 40);
}
