"use client";

import { AlertDialog } from "radix-ui";
import type { ReactElement, ReactNode } from "react";

/**
 * A confirmation before a destructive action (revoke, roll, clear), on Radix's AlertDialog: a modal with
 * a title and description read by screen readers (`aria-labelledby`, `aria-describedby`), focus moved to
 * Cancel when it opens (so Enter never confirms by accident), kept inside while open, and returned to the
 * trigger when it closes; Escape cancels.
 *
 * Usage: `<ConfirmDialog trigger={<button type="button" className="danger">Revoke</button>} title="Revoke
 * key kid_…?" description="Requests with it answer 401 at once." confirmLabel="Revoke key"
 * onConfirm={() => revoke.mutate(...)} />`. `children` go between the description and the buttons (a
 * choice the action needs, e.g. the roll delay). Pass `open`/`onOpenChange` to control it from outside.
 */
export function ConfirmDialog({
  trigger,
  title,
  description,
  confirmLabel,
  cancelLabel = "Cancel",
  destructive = true,
  onConfirm,
  children,
  open,
  onOpenChange,
}: {
  /** The element that opens the dialog (rendered as is, usually a button). */
  trigger?: ReactElement;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  /** Red confirm button; false for a confirmation that destroys nothing. */
  destructive?: boolean;
  /** Called when the confirm button is pressed; the dialog then closes. */
  onConfirm: () => void;
  children?: ReactNode;
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
}) {
  return (
    <AlertDialog.Root open={open} onOpenChange={onOpenChange}>
      {trigger && <AlertDialog.Trigger asChild>{trigger}</AlertDialog.Trigger>}
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="dialog-overlay" />
        {/* "console" gives the dialog the console's type, buttons and inputs: the portal sits outside it. */}
        <AlertDialog.Content className="console dialog-content">
          <AlertDialog.Title>{title}</AlertDialog.Title>
          <AlertDialog.Description>{description}</AlertDialog.Description>
          {children}
          <div className="row dialog-actions">
            <AlertDialog.Cancel asChild>
              <button type="button" className="secondary">
                {cancelLabel}
              </button>
            </AlertDialog.Cancel>
            <AlertDialog.Action asChild>
              <button type="button" className={destructive ? "danger" : undefined} onClick={onConfirm}>
                {confirmLabel}
              </button>
            </AlertDialog.Action>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
