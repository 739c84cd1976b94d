"use client";

import { useMutation } from "@tanstack/react-query";
import { Dialog } from "radix-ui";
import { useState } from "react";
import { fieldMessage, FieldMessage, type ConsoleError } from "../../_components/field-errors";
import { useTRPC } from "../../_components/trpc-provider";

/** "Rename": a dialog with the key's name (empty = unnamed); closes when the server has saved it. */
export function KeyNameDialog({
  tenantId,
  keyId,
  name,
  onSaved,
}: {
  tenantId: string;
  keyId: string;
  name: string | null;
  onSaved: () => void;
}) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const rename = useMutation(
    trpc.integrations.renameKey.mutationOptions({
      onSuccess: () => {
        setOpen(false);
        onSaved();
      },
    }),
  );
  const message = fieldMessage(rename.error as ConsoleError | null, "/name");
  const other = rename.error && !message ? rename.error.message : null;
  return (
    <Dialog.Root
      open={open}
      onOpenChange={(o) => {
        setOpen(o);
        if (o) rename.reset();
      }}
    >
      <Dialog.Trigger asChild>
        <button type="button" className="secondary" aria-label={`Rename key ${keyId}`}>
          Rename
        </button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="console dialog-content">
          <Dialog.Title>Name of key {keyId}</Dialog.Title>
          <Dialog.Description className="hint">
            A name tells your keys apart, such as &quot;shop backend&quot;. Leave it empty for none.
          </Dialog.Description>
          <form
            className="stack"
            style={{ marginTop: 12 }}
            onSubmit={(e) => {
              e.preventDefault();
              const f = new FormData(e.currentTarget);
              rename.mutate({ tenantId, keyId, name: String(f.get("name") ?? "") });
            }}
          >
            <label>
              Name
              <input
                name="name"
                defaultValue={name ?? ""}
                maxLength={100}
                aria-invalid={Boolean(message)}
                aria-describedby="key-name-error"
              />
              <FieldMessage id="key-name-error" message={message} />
            </label>
            {other && (
              <p className="error" role="alert">
                {other}
              </p>
            )}
            <div className="row dialog-actions">
              <Dialog.Close asChild>
                <button type="button" className="secondary">
                  Cancel
                </button>
              </Dialog.Close>
              <button type="submit" disabled={rename.isPending}>
                Save name
              </button>
            </div>
          </form>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
