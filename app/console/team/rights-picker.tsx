"use client";

/** Every right a member can hold, with what it lets them do (SECURITY.md "Rights inside a tenant"). */
export const RIGHT_TEXT: Record<string, string> = {
  manage_integrations: "Integrations and keys, spend limits",
  manage_webhooks: "Webhook subscriptions",
  topup_wallet: "Top up the wallet",
  view_personal_data: "Personal data: disclosure journal, personal-data scopes and webhooks",
  manage_team: "Invite, change and remove members",
};

/**
 * Check boxes for rights; a right the viewer does not hold is shown disabled (nobody gives a right they
 * do not have; the server refuses it too).
 */
export function RightsPicker({
  name,
  held,
  initial,
}: {
  name: string;
  held: readonly string[];
  initial: readonly string[];
}) {
  return (
    <fieldset>
      <legend>Rights</legend>
      {Object.entries(RIGHT_TEXT).map(([right, text]) => (
        <label key={right} style={{ display: "block" }}>
          <input
            type="checkbox"
            name={name}
            value={right}
            defaultChecked={initial.includes(right)}
            disabled={!held.includes(right)}
          />{" "}
          <code>{right}</code> <span className="hint">{text}</span>
        </label>
      ))}
    </fieldset>
  );
}

/** The checked rights of a form, plus the ones the viewer cannot change (disabled boxes keep their state). */
export function pickedRights(form: HTMLFormElement, name: string, held: readonly string[], initial: readonly string[]) {
  const f = new FormData(form);
  const checked = f.getAll(name).map(String);
  return [...checked, ...initial.filter((r) => !held.includes(r) && !checked.includes(r))];
}
