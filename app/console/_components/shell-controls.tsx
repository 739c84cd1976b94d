"use client";

import { usePathname, useRouter } from "next/navigation";
import { useState } from "react";
import { authClient } from "@/server/auth/auth-client";

/** Chooses the tenant the console acts in (kept in `?tenant=`). */
export function TenantSwitcher({
  tenants,
  current,
}: {
  tenants: { id: string; name: string }[];
  current: string | null;
}) {
  const router = useRouter();
  const pathname = usePathname();
  if (tenants.length < 2) return tenants[0] ? <span>{tenants[0].name}</span> : null;
  return (
    <label className="row" style={{ fontWeight: 400 }}>
      Tenant
      <select value={current ?? ""} onChange={(e) => router.push(`${pathname}?tenant=${e.target.value}`)}>
        {tenants.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Ends the session and goes to the sign-in page. */
export function SignOutButton() {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      className="secondary"
      disabled={busy}
      onClick={async () => {
        setBusy(true);
        await authClient.signOut();
        router.push("/console/sign-in");
        router.refresh();
      }}
    >
      Sign out
    </button>
  );
}
