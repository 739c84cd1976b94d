import { useState, type ReactNode } from "react";

/** Keeps only the filters that are set, so an empty field means "any". */
function compactFilters<F extends object>(f: F): F {
  return Object.fromEntries(Object.entries(f).filter(([, v]) => v)) as F;
}

/** The state of a {@link FilterForm}: what its fields hold (`draft`) and what the list is filtered by. */
export interface FilterState<F extends object> {
  draft: F;
  setDraft: (draft: F) => void;
  /** The applied filters, only those set: what the list's query takes. */
  filters: F;
  /** Filters the list by the draft. */
  apply: () => void;
  /** Empties the fields and the filters at once. */
  clear: () => void;
}

/**
 * A filter row's state: fields edit a draft, and only Apply or Clear change `filters`, calling
 * `onChange` then (a keyset list goes back to its first page).
 * @param initial the filters the page opens with (a request id from a link); unset fields are left out
 */
export function useFilters<F extends object>(initial: F, onChange: () => void): FilterState<F> {
  const [draft, setDraft] = useState<F>(() => compactFilters(initial));
  const [filters, setFilters] = useState<F>(() => compactFilters(initial));
  const applyFilters = (next: F) => {
    setFilters(compactFilters(next));
    onChange();
  };
  return {
    draft,
    setDraft,
    filters,
    apply: () => applyFilters(draft),
    clear: () => {
      setDraft({} as F);
      applyFilters({} as F);
    },
  };
}

/**
 * A console list's row of filters: its fields, then Apply (also Enter in a field), Clear (empties the
 * fields and applies at once) and any `actions` (Refresh, Export CSV). The fields edit the draft of
 * `state` ({@link useFilters}); nothing is fetched until Apply, so typing does not reload the list on every key.
 * @param label the form's accessible name ("Request filters")
 */
export function FilterForm<F extends object>({
  label,
  state,
  actions,
  children,
}: {
  label: string;
  state: FilterState<F>;
  actions?: ReactNode;
  children: ReactNode;
}) {
  return (
    <form
      className="row"
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        state.apply();
      }}
    >
      {children}
      <button type="submit">Apply</button>
      <button type="button" className="secondary" onClick={state.clear}>
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
