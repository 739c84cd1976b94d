import Link from "next/link";
import type { ReactNode } from "react";
import type { ConsoleSession } from "@/server/auth/console-session";
import { SignOutButton, TenantSwitcher } from "./shell-controls";
import { TestDataBanner } from "./test-data-banner";
import { TestModeSwitch } from "./test-mode-switch";

const LINKS = [
  { href: "/console", label: "Overview" },
  { href: "/console/integrations", label: "Integrations and keys" },
  { href: "/console/webhooks", label: "Webhooks" },
  { href: "/console/wallet", label: "Wallet" },
  { href: "/console/operations", label: "Operations" },
  { href: "/console/requests", label: "API requests" },
  { href: "/console/usage", label: "Usage" },
  { href: "/console/analytics", label: "Analytics" },
  { href: "/console/leads", label: "Leads" },
  { href: "/console/articles", label: "Articles" },
  { href: "/console/strategist", label: "Strategist" },
  { href: "/console/sites", label: "Sites" },
  { href: "/console/journal", label: "Disclosure journal" },
  { href: "/console/team", label: "Team" },
  { href: "/console/settings", label: "Settings" },
];

/** The right that resets the sandbox ("Reset test data", the tRPC mutation `sandbox.reset`). */
const RESET_RIGHT = "manage_integrations";

/**
 * Frame of every console page: a sidebar (a top bar on phones) with navigation, the "Test mode" switch
 * (tenants with the preview `test-mode` only: for others the sandbox does not exist, so the switch is not
 * shown at all), tenant switcher, sign-out; while Test mode is on, the "Test data" banner over the page.
 */
export function Shell({
  session,
  current,
  children,
}: {
  session: ConsoleSession;
  current: string;
  children: ReactNode;
}) {
  const q = session.tenantId ? `?tenant=${session.tenantId}` : "";
  const test = session.tenantId !== null && session.testMode.on;
  return (
    <div className={`console${test ? " test-mode" : ""}`}>
      <header className="sidebar">
        <Link href={`/console${q}`} className="brand">
          Platform <span>console</span>
        </Link>
        <nav aria-label="Console">
          {LINKS.map((l) => (
            <Link key={l.href} href={`${l.href}${q}`} aria-current={current === l.href ? "page" : undefined}>
              {l.label}
            </Link>
          ))}
          <Link href="/docs">Docs</Link>
          {/* A full page load: Swagger UI runs from its own script tags (app/docs/api/api-reference.tsx). */}
          {/* eslint-disable-next-line @next/next/no-html-link-for-pages */}
          <a href="/docs/api">API reference</a>
          <a href="/developers/errors">Error codes</a>
        </nav>
        <div className="account">
          {session.tenantId && session.testMode.available && <TestModeSwitch on={session.testMode.on} />}
          <TenantSwitcher tenants={session.tenants} current={session.tenantId} />
          <span className="hint">{session.staff.email}</span>
          <SignOutButton />
        </div>
      </header>
      <main>
        {test && session.tenantId && (
          <TestDataBanner tenantId={session.tenantId} canReset={session.rights.includes(RESET_RIGHT)} />
        )}
        {session.tenantId ? (
          children
        ) : (
          <p className="notice">You are not a member of any tenant yet. Ask a tenant owner to invite you.</p>
        )}
      </main>
    </div>
  );
}
