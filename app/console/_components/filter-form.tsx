import type { ReactNode } from "react";

/** Keeps only the filters that are set, so an empty field means "any" (console list filters). */
export function compactFilters<F extends object>(f: F): F {
  return Object.fromEntries(Object.entries(f).filter(([, v]) => v)) as F;
}

/**
 * A console list's row of filters: its fields, then Apply (also Enter in a field), Clear (empties the
 * fields and applies at once) and any `actions` (Refresh, Export CSV). The fields edit a draft in the
 * panel; nothing is fetched until Apply, so typing does not reload the list on every key.
 * @param label the form's accessible name ("Request filters")
 */
export function FilterForm({
  label,
  onApply,
  onClear,
  actions,
  children,
}: {
  label: string;
  onApply: () => void;
  onClear: () => void;
  actions?: ReactNode;
  children: ReactNode;
}) {
  return (
    <form
      className="row"
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        onApply();
      }}
    >
      {children}
      <button type="submit">Apply</button>
      <button type="button" className="secondary" onClick={onClear}>
        Clear
      </button>
      {actions}
    </form>
  );
}

/** The "Integration" select of a filter row: "all" (undefined), then the tenant's integrations by name. */
export function IntegrationFilter({
  integrations,
  value,
  onChange,
}: {
  integrations: readonly { id: string; name: string }[] | undefined;
  value: string | undefined;
  onChange: (integrationId: string | undefined) => void;
}) {
  return (
    <label>
      Integration{" "}
      <select value={value ?? ""} onChange={(e) => onChange(e.target.value || undefined)}>
        <option value="">all</option>
        {integrations?.map((i) => (
          <option key={i.id} value={i.id}>
            {i.name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The "Request id" field of a filter row (`req_…`, the `X-Request-Id` of an answer), trimmed as typed. */
export function RequestIdFilter({ value, onChange }: { value: string | undefined; onChange: (id: string) => void }) {
  return (
    <label>
      Request id <input value={value ?? ""} placeholder="req_…" onChange={(e) => onChange(e.target.value.trim())} />
    </label>
  );
}
