"use client";

import { ShownOnceBox } from "../_components/shown-once-box";

/**
 * A connector token just issued (by "Add site" or "Rotate token"): shown once with a copy button, the
 * warning that it will not come back, and the line that starts the connector with it.
 */
export function TokenBox({ domain, token, onDone }: { domain: string; token: string; onDone: () => void }) {
  const origin = typeof window === "undefined" ? "" : window.location.origin;
  return (
    <ShownOnceBox
      value={token}
      testId="connector-token"
      copyLabel="Copy token"
      onDone={onDone}
      after={
        <p className="hint">
          <code>
            npx site-connector --base-url {origin} --token &lt;this token&gt; --target folder:DIR --public-url URL
          </code>
        </p>
      }
    >
      <strong>Copy the connector token of {domain} now.</strong> It is shown only this once: we keep only its hash, so
      it cannot be shown again (rotate the token if it is lost). Give it to the site connector on your site:
    </ShownOnceBox>
  );
}
