import { cookies } from "next/headers";
import type { ReactNode } from "react";
import { CONSOLE_MODE_COOKIE, CONSOLE_TEST_MODE_VALUE } from "@/server/lib/console-mode";
import { ConsoleProviders } from "./_components/trpc-provider";
import "./console.css";

/**
 * The console's providers, keyed by the Test mode cookie (issue 69 item 6): switching the mode re-renders
 * this layout with the other key, so the query cache starts empty and never shows the other mode's data.
 */
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const test = (await cookies()).get(CONSOLE_MODE_COOKIE)?.value === CONSOLE_TEST_MODE_VALUE;
  return <ConsoleProviders key={test ? "test" : "live"}>{children}</ConsoleProviders>;
}
