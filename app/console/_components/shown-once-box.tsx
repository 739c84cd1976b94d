"use client";

import { useState, type ReactNode } from "react";

/**
 * A credential just issued (a webhook signing secret, a site's connector token): shown this once, with a
 * copy button and "I have stored it", which hides it for good. `children` says what it is and why it will
 * not come back; `after` goes under the value (a hint of how to use it).
 */
export function ShownOnceBox(props: {
  value: string;
  testId: string;
  /** The copy button's label, e.g. "Copy secret"; it reads "Copied" once used. */
  copyLabel: string;
  onDone: () => void;
  children: ReactNode;
  after?: ReactNode;
}) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="secret" role="status" aria-live="polite">
      <p style={{ marginTop: 0 }}>{props.children}</p>
      <pre data-testid={props.testId}>{props.value}</pre>
      {props.after}
      <div className="row">
        <button
          type="button"
          onClick={async () => {
            await navigator.clipboard?.writeText(props.value).catch(() => {});
            setCopied(true);
          }}
        >
          {copied ? "Copied" : props.copyLabel}
        </button>
        <button type="button" className="secondary" onClick={props.onDone}>
          I have stored it
        </button>
      </div>
    </div>
  );
}
