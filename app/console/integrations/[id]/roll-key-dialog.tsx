"use client";

import { useState } from "react";
import { ConfirmDialog } from "../../_components/confirm-dialog";

/** When the old key of a roll stops working: the choices of the server's ROLL_DELAYS. */
export const ROLL_CHOICES = [
  { value: "now", label: "Now", hint: "the old key answers 401 at once" },
  { value: "1h", label: "In 1 hour", hint: "" },
  { value: "24h", label: "In 24 hours", hint: "" },
  { value: "7d", label: "In 7 days", hint: "time to deploy the new key everywhere" },
] as const;

/** A delay of {@link ROLL_CHOICES}. */
export type RollChoice = (typeof ROLL_CHOICES)[number]["value"];

/**
 * "Roll key": a confirmation that asks when the old key should stop working, then calls `onRoll` with the
 * choice (default 24 hours, as Stripe's roll). The new key is shown once by the caller.
 */
export function RollKeyDialog({
  keyId,
  disabled,
  onRoll,
}: {
  keyId: string;
  disabled: boolean;
  onRoll: (delay: RollChoice) => void;
}) {
  const [delay, setDelay] = useState<RollChoice>("24h");
  return (
    <ConfirmDialog
      trigger={
        <button type="button" className="secondary" aria-label={`Roll key ${keyId}`} disabled={disabled}>
          Roll
        </button>
      }
      title={`Roll key ${keyId}?`}
      description="A new key with the same settings is issued and shown once. Choose when this key stops working: until then both keys work."
      confirmLabel="Roll key"
      onConfirm={() => onRoll(delay)}
    >
      <fieldset style={{ marginTop: 12 }}>
        <legend>The old key expires</legend>
        {ROLL_CHOICES.map((c) => (
          <label key={c.value} style={{ display: "flex", gap: 6, alignItems: "center", fontWeight: 400 }}>
            <input
              type="radio"
              name="roll-delay"
              value={c.value}
              checked={delay === c.value}
              onChange={() => setDelay(c.value)}
            />
            {c.label}
            {c.hint && <span className="hint">({c.hint})</span>}
          </label>
        ))}
      </fieldset>
    </ConfirmDialog>
  );
}
