import type { z } from "zod";

/**
 * A model's JSON answer read against `schema` (the article writer's and the strategist's answers): the
 * value, or what makes it unusable as a sentence the model is told when it is asked again (at most five of
 * the schema's issues, each with its path).
 */
export function readJsonAnswer<T>(content: string, schema: z.ZodType<T>): { value: T } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return { problem: "the answer is not a JSON object" };
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    return {
      problem: `the JSON object is not as asked (${parsed.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.join(".") || "answer"}: ${i.message}`)
        .join("; ")})`,
    };
  return { value: parsed.data };
}
