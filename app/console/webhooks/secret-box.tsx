"use client";

import { useState } from "react";

/** A signing secret just issued: shown once with a copy button and the warning that it will not come back. */
export function SecretBox({ secret, onDone }: { secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="secret" role="status" aria-live="polite">
      <p style={{ marginTop: 0 }}>
        <strong>Copy this signing secret now.</strong> It will not be shown again; we keep it only encrypted. Use it to
        check the signature of every delivery.
      </p>
      <pre data-testid="new-secret">{secret}</pre>
      <div className="row">
        <button
          type="button"
          onClick={async () => {
            await navigator.clipboard?.writeText(secret).catch(() => {});
            setCopied(true);
          }}
        >
          {copied ? "Copied" : "Copy secret"}
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          I have stored it
        </button>
      </div>
    </div>
  );
}
