"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useOptimistic, useTransition } from "react";
import { consoleModeCookie } from "@/server/lib/console-mode";

/**
 * The console's "Test mode" switch (issue 69 item 6), shown in the shell of a tenant with the preview
 * `test-mode`. Switching writes the mode cookie (server/lib/console-mode.ts) that every tRPC call and
 * server render reads, empties this tab's query cache (so no page shows the other mode's data it
 * fetched before), and re-renders the page from the server in the new mode; the console's providers
 * are keyed by the mode too (app/console/layout.tsx), so the whole cache is new after the switch.
 */
export function TestModeSwitch({ on }: { on: boolean }) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [pending, startTransition] = useTransition();
  const [shown, setShown] = useOptimistic(on);
  return (
    <button
      type="button"
      role="switch"
      aria-checked={shown}
      className={`mode-switch${shown ? " on" : ""}`}
      disabled={pending}
      onClick={() =>
        startTransition(async () => {
          const next = !shown;
          setShown(next);
          await queryClient.cancelQueries();
          queryClient.clear();
          // Not a session or a secret: a preference the server checks against the tenant's preview.
          document.cookie = consoleModeCookie(next, location.protocol === "https:");
          router.refresh();
        })
      }
    >
      <span className="track" aria-hidden="true">
        <span className="thumb" />
      </span>
      Test mode
    </button>
  );
}
