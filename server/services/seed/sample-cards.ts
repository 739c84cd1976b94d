import type { Db } from "@/db/client";
import { products } from "@/db/schema";
import type { SeedOwner } from "./seed-strategist";

/**
 * The sample catalog of the demo shop and of every sandbox: three cards (`trail-shoes` priced in minor
 * units, `rain-jacket` with a badge, a site path and two buttons, `gift-card` with a price range), as
 * `POST /cards` would store them. Addresses are site paths, or on the demo's main domain.
 */
const SAMPLE_PRODUCTS = [
  {
    name: "Trail running shoes",
    priceMinor: 1299000n,
    currency: "RUB",
    code: "trail-shoes",
    pageUrl: "/catalog/trail-shoes",
    aiEnabled: true,
    sort: 1,
  },
  {
    code: "rain-jacket",
    name: "Rain jacket",
    description: "Light, packable, taped seams.",
    priceText: "from 8 990 ₽",
    badge: "New",
    pageUrl: "/catalog/rain-jacket",
    buttons: [
      { label: "Buy", url: "/cart/add?sku=rain-jacket" },
      { label: "Sizes", url: "https://demo-shop.example/sizes" },
    ],
    aiEnabled: true,
    sort: 2,
  },
  { code: "gift-card", name: "Gift card", priceText: "1 000 – 20 000 ₽", sort: 3 },
];

/**
 * Writes the sample catalog for `owner`. A code the owner already uses is left as it is (the sandbox may
 * hold a card of that code made before it was seeded).
 */
export async function insertSampleCards(db: Db, owner: SeedOwner): Promise<void> {
  await db
    .insert(products)
    .values(SAMPLE_PRODUCTS.map((p) => ({ ...owner, ...p })))
    .onConflictDoNothing();
}
