import type { ReactNode } from "react";
import { ConsoleProviders } from "./_components/trpc-provider";
import "./console.css";

export default function ConsoleLayout({ children }: { children: ReactNode }) {
  return <ConsoleProviders>{children}</ConsoleProviders>;
}
