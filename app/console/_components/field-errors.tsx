"use client";

/** Shape of a console error: message plus the catalog code and field errors the server sent. */
export interface ConsoleError {
  message: string;
  data?: { code?: string | null; errors?: { field: string; message: string }[] | null } | null;
}

/** An error box listing field errors with their fields, announced to screen readers. */
export function ErrorBox({ error }: { error: ConsoleError | null }) {
  if (!error) return null;
  const fields = error.data?.errors ?? [];
  return (
    <div className="error" role="alert">
      <p style={{ margin: 0 }}>{error.message}</p>
      {fields.length > 0 && (
        <ul style={{ margin: "4px 0 0" }}>
          {fields.map((f, i) => (
            <li key={i}>
              <code>{f.field.replace(/^\//, "") || "form"}</code>: {f.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Splits a text area of addresses (commas, spaces or lines) into entries; null when empty. */
export function parseList(text: string): string[] | null {
  const list = text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  return list.length ? list : null;
}

/**
 * The message of the first field error of `error` whose JSON Pointer is one of `fields` (a procedure's
 * input name such as `/mainDomain`, or the service's spec name such as `/main_domain`); null when none.
 */
export function fieldMessage(error: ConsoleError | null | undefined, ...fields: string[]): string | null {
  return error?.data?.errors?.find((e) => fields.includes(e.field))?.message ?? null;
}

/**
 * A validation message shown beside its field. Give the field `aria-invalid={Boolean(message)}` and
 * `aria-describedby={id}` so a screen reader reads the message with it.
 */
export function FieldMessage({ id, message }: { id: string; message: string | null }) {
  return (
    <span id={id} className="field-error" role={message ? "alert" : undefined}>
      {message ?? ""}
    </span>
  );
}
