"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { authClient } from "@/server/auth/auth-client";

export function SignInForm({ next }: { next: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="stack"
      onSubmit={async (e) => {
        e.preventDefault();
        const f = new FormData(e.currentTarget);
        setBusy(true);
        setError(null);
        const { error } = await authClient.signIn.email({
          email: String(f.get("email")),
          password: String(f.get("password")),
        });
        setBusy(false);
        if (error)
          return setError(
            error.status === 401 ? "Email or password is wrong." : (error.message ?? "Sign-in failed; try again."),
          );
        router.push(next);
        router.refresh();
      }}
    >
      <label>
        Email
        <input name="email" type="email" autoComplete="username" required />
      </label>
      <label>
        Password
        <input name="password" type="password" autoComplete="current-password" required />
      </label>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy}>
        {busy ? "Signing in…" : "Sign in"}
      </button>
      <p className="hint" style={{ margin: 0 }}>
        <Link href="/console/forgot-password">Forgot password?</Link>
      </p>
    </form>
  );
}
