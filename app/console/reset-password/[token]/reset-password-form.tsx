"use client";

import Link from "next/link";
import { useState } from "react";
import { authClient } from "@/server/auth/auth-client";

/** The new password, twice; sent with the link's token to better-auth's `reset-password`. */
export function ResetPasswordForm({ token }: { token: string }) {
  const [done, setDone] = useState(false);
  const [error, setError] = useState<{ message: string; invalid: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  if (done)
    return (
      <>
        <p className="notice" role="status">
          Your password is set. Every session of the account has been signed out, here and elsewhere.
        </p>
        <p>
          <Link href="/console/sign-in">Sign in with the new password</Link>
        </p>
      </>
    );
  return (
    <form
      className="stack"
      onSubmit={async (e) => {
        e.preventDefault();
        const f = new FormData(e.currentTarget);
        const newPassword = String(f.get("password"));
        setError(null);
        if (newPassword !== String(f.get("repeat")))
          return setError({ message: "The two passwords differ; type the same password twice.", invalid: false });
        setBusy(true);
        const r = await authClient.resetPassword({ newPassword, token });
        setBusy(false);
        if (!r.error) return setDone(true);
        const invalid = r.error.code === "INVALID_TOKEN";
        setError({
          message: invalid
            ? "This link is not valid any more: it was used, or more than an hour has passed."
            : (r.error.message ?? "The password could not be set; try again."),
          invalid,
        });
      }}
    >
      <label>
        New password <span className="hint">10 to 128 characters</span>
        <input name="password" type="password" minLength={10} maxLength={128} required autoComplete="new-password" />
      </label>
      <label>
        Repeat the new password
        <input name="repeat" type="password" required autoComplete="new-password" />
      </label>
      {error && (
        <p className="error" role="alert">
          {error.message} {error.invalid && <Link href="/console/forgot-password">Ask for a new link</Link>}
        </p>
      )}
      <button type="submit" disabled={busy}>
        {busy ? "Setting…" : "Set the new password"}
      </button>
    </form>
  );
}
