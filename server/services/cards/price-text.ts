const formatters = new Map<string, Intl.NumberFormat>();
/** Price texts by cell, currency and minor units: at most 10,000, then the map starts over. */
const texts = new Map<string, string>();
const LOCALES: Record<string, string> = { ru: "ru-RU", en: "en-GB", id: "id-ID" };

/**
 * Price text derived from a product price when the card has none (spec "Card": price_text), in the
 * cell's locale: 199000n RUB on RU → "1 990 ₽"; kopecks shown only when present. At most 40 chars.
 */
export function formatPrice(minor: bigint, currency: string, cell: string): string {
  // A catalogue has few distinct prices, and Intl's formatting was a twentieth of a cards page's own CPU.
  const key = `${cell}|${currency}|${minor}`;
  let text = texts.get(key);
  if (text === undefined) {
    if (texts.size >= 10_000) texts.clear();
    text = formatted(minor, currency, cell);
    texts.set(key, text);
  }
  return text;
}

function formatted(minor: bigint, currency: string, cell: string): string {
  const whole = minor % 100n === 0n;
  const locale = LOCALES[cell] ?? "en-GB";
  const cacheKey = `${locale}|${currency}|${whole}`;
  let f = formatters.get(cacheKey);
  if (!f) {
    // Building a formatter costs far more than using one; a card page formats up to 100 prices.
    f = new Intl.NumberFormat(locale, {
      style: "currency",
      currency,
      minimumFractionDigits: whole ? 0 : 2,
      maximumFractionDigits: whole ? 0 : 2,
    });
    if (formatters.size < 1000) formatters.set(cacheKey, f);
  }
  return f
    .format(Number(minor) / 100)
    .replace(/\u00a0|\u202f/g, " ")
    .slice(0, 40);
}
