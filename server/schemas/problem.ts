import { z } from "zod";
import { ERROR_CATALOG, type ErrorCode } from "@/server/errors";
import { MoneySchema } from "./common";

const CODES = Object.keys(ERROR_CATALOG) as [ErrorCode, ...ErrorCode[]];

/** One item of `errors[]` of `validation_failed`: `field` is an RFC 6901 JSON Pointer (`/limit`, `/events/0`). */
export const FieldErrorSchema = z
  .object({
    field: z.string().meta({
      description: "JSON Pointer (RFC 6901) of the field; `/<name>` for path and query parameters",
      example: "/limit",
    }),
    code: z
      .string()
      .meta({ description: "e.g. out_of_range, required, invalid_format, not_supported", example: "out_of_range" }),
    message: z.string(),
  })
  .meta({ id: "FieldError" });

/**
 * The RFC 9457 problem body of every error (spec "Errors: Problem body"). `code` is one of the catalog;
 * the optional members appear only for their codes (`errors` for `validation_failed`, `correct_base_url`
 * for `wrong_cell`, `topup_url` and `balance` for `wallet_suspended`).
 */
export const ProblemSchema = z
  .object({
    type: z.string().meta({ description: "`{cell_origin}/developers/errors#<code>`" }),
    title: z.string().meta({ description: "short name, the same for every answer with this code" }),
    status: z.number().int().min(400).max(599).meta({ description: "the HTTP status" }),
    code: z.enum(CODES).meta({ description: "stable machine code; branch on it, not on `detail`" }),
    detail: z.string().meta({ description: "explanation of this case for people; do not parse" }),
    request_id: z.string().meta({ description: "equals the `X-Request-Id` header" }),
    errors: z.array(FieldErrorSchema).optional().meta({ description: "only for validation_failed" }),
    correct_base_url: z.string().optional().meta({ description: "only for wrong_cell" }),
    topup_url: z.string().optional().meta({ description: "only for wallet_suspended" }),
    balance: MoneySchema.nullable()
      .optional()
      .meta({ description: "only for wallet_suspended: the balance at refusal" }),
    etag: z
      .string()
      .optional()
      .meta({ description: "only for precondition_failed: the resource's current entity tag" }),
  })
  .meta({ id: "Problem", description: "RFC 9457 problem details (media type application/problem+json)" });
export type Problem = z.infer<typeof ProblemSchema>;
