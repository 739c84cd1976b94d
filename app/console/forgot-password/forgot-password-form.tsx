"use client";

import Link from "next/link";
import { useState } from "react";
import { authClient } from "@/server/auth/auth-client";

/**
 * The email form of a password reset. The answer is the same whether the email has an account or not,
 * so the form tells nobody who has one.
 */
export function ForgotPasswordForm() {
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (sentTo)
    return (
      <>
        <p className="notice" role="status">
          If {sentTo} has a console account, a link to set a new password is on its way there. It works once, for an
          hour; setting the password signs the account out everywhere.
        </p>
        <p>
          <Link href="/console/sign-in">Back to sign-in</Link>
        </p>
      </>
    );
  return (
    <form
      className="stack"
      onSubmit={async (e) => {
        e.preventDefault();
        const email = String(new FormData(e.currentTarget).get("email")).trim();
        setBusy(true);
        setError(null);
        const r = await authClient.requestPasswordReset({ email });
        setBusy(false);
        if (r.error) return setError(r.error.message ?? "The request failed; try again.");
        setSentTo(email);
      }}
    >
      <label>
        Email
        <input name="email" type="email" autoComplete="username" required />
      </label>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy}>
        {busy ? "Sending…" : "Mail me a link"}
      </button>
      <p className="hint" style={{ margin: 0 }}>
        <Link href="/console/sign-in">Back to sign-in</Link>
      </p>
    </form>
  );
}
