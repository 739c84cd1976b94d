import type { Metadata } from "next";
import type { ReactNode } from "react";

export const metadata: Metadata = { title: "Platform", description: "Public API v1 and tenant console" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body style={{ fontFamily: "system-ui, sans-serif", margin: 0, color: "#1b1f24" }}>{children}</body>
    </html>
  );
}
