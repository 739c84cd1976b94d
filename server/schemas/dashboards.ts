import { z } from "zod";

/** The eleven blocks of the overview dashboard, in the order of the spec ("Dashboard overview"). */
export const DASHBOARD_BLOCKS = [
  "strategist",
  "kpi",
  "funnel",
  "attention",
  "ads",
  "ai_assistants",
  "popular_pages",
  "clusters",
  "data_trust",
  "sitemap_health",
  "status",
] as const;
export type DashboardBlockName = (typeof DASHBOARD_BLOCKS)[number];

/** Availability of a block (spec "Dashboard overview"). */
export const BLOCK_AVAILABILITY = ["ok", "no_data", "no_source", "not_connected"] as const;

/**
 * One block: `availability`, optional `reason`, `data_as_of` (source → date YYYY-MM-DD through which its
 * data is complete), plus payload fields the spec does not show (hence a loose object).
 */
export const DashboardBlockSchema = z.looseObject({
  availability: z.enum(BLOCK_AVAILABILITY),
  reason: z.string().optional(),
  data_as_of: z.record(z.string(), z.string()),
});
export type DashboardBlock = z.infer<typeof DashboardBlockSchema>;

/** `{data: {from, to, blocks}}` of `GET /dashboards/overview`; only the requested blocks are present. */
export const DashboardOverviewSchema = z.object({
  data: z.object({
    from: z.iso.date(),
    to: z.iso.date(),
    blocks: z.object(
      Object.fromEntries(DASHBOARD_BLOCKS.map((b) => [b, DashboardBlockSchema.optional()])) as Record<
        DashboardBlockName,
        z.ZodOptional<typeof DashboardBlockSchema>
      >,
    ),
  }),
});
export type DashboardOverview = z.infer<typeof DashboardOverviewSchema>;

const dateParam = (field: string) => z.iso.date({ message: `${field} must be a real date YYYY-MM-DD` });

/**
 * Query of `GET /dashboards/overview`: `from`, `to` (real dates YYYY-MM-DD), `blocks` (comma-separated
 * names out of {@link DASHBOARD_BLOCKS}, parsed to a list without repeats, in the spec's order).
 */
export const DashboardOverviewQuery = z.strictObject({
  from: dateParam("from").optional(),
  to: dateParam("to").optional(),
  blocks: z
    .string()
    .refine((v) => v.split(",").every((b) => (DASHBOARD_BLOCKS as readonly string[]).includes(b.trim())), {
      message: `must be a comma-separated list of ${DASHBOARD_BLOCKS.join(", ")}`,
      params: { code: "invalid_value" },
    })
    .transform((v) => {
      const asked = new Set(v.split(",").map((b) => b.trim()));
      return DASHBOARD_BLOCKS.filter((b) => asked.has(b));
    })
    .optional(),
});
