"use client";

import { ShownOnceBox } from "../_components/shown-once-box";

/** A signing secret just issued: shown once with a copy button and the warning that it will not come back. */
export function SecretBox({ secret, onDone }: { secret: string; onDone: () => void }) {
  return (
    <ShownOnceBox value={secret} testId="new-secret" copyLabel="Copy secret" onDone={onDone}>
      <strong>Copy this signing secret now.</strong> It will not be shown again; we keep it only encrypted. Use it to
      check the signature of every delivery.
    </ShownOnceBox>
  );
}
