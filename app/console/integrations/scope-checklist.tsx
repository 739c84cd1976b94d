"use client";

import { SCOPES, type Scope } from "@/server/schemas/scopes";

/** The scope checkboxes of the integration forms (create and edit). */
export function ScopeChecklist({ value, onChange }: { value: Set<Scope>; onChange: (next: Set<Scope>) => void }) {
  return (
    <fieldset>
      <legend>Scopes</legend>
      <div className="scopes">
        {SCOPES.map((s) => (
          <label key={s}>
            <input
              type="checkbox"
              checked={value.has(s)}
              onChange={(e) => {
                const next = new Set(value);
                if (e.target.checked) next.add(s);
                else next.delete(s);
                onChange(next);
              }}
            />
            {s}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
