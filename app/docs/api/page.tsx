import type { Metadata } from "next";
import { headers } from "next/headers";
import { NONCE_HEADER } from "@/server/lib/content-security-policy";
import { ApiReference } from "./api-reference";

export const metadata: Metadata = {
  title: "API reference",
  description: "Public HTTP API v1: the OpenAPI document rendered by Swagger UI",
};

/** The API reference page, rendered per request so its scripts carry this response's CSP nonce. */
export default async function ApiReferencePage() {
  const nonce = (await headers()).get(NONCE_HEADER) ?? undefined;
  return <ApiReference nonce={nonce} />;
}
