"use client";

import { useState } from "react";

/**
 * A connector token just issued (by "Add site" or "Rotate token"): shown once with a copy button, the
 * warning that it will not come back, and the line that starts the connector with it.
 */
export function TokenBox({ domain, token, onDone }: { domain: string; token: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="secret" role="status" aria-live="polite">
      <p style={{ marginTop: 0 }}>
        <strong>Copy the connector token of {domain} now.</strong> It is shown only this once: we keep only its hash, so
        it cannot be shown again (rotate the token if it is lost). Give it to the site connector on your site:
      </p>
      <pre data-testid="connector-token">{token}</pre>
      <p className="hint">
        <code>
          npx site-connector --base-url {typeof window === "undefined" ? "" : window.location.origin} --token &lt;this
          token&gt; --target folder:DIR --public-url URL
        </code>
      </p>
      <div className="row">
        <button
          type="button"
          onClick={async () => {
            await navigator.clipboard?.writeText(token).catch(() => {});
            setCopied(true);
          }}
        >
          {copied ? "Copied" : "Copy token"}
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          I have stored it
        </button>
      </div>
    </div>
  );
}
