"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useRef, useState } from "react";
import { authClient } from "@/server/auth/auth-client";
import { ErrorBox, type ConsoleError } from "../../_components/field-errors";
import { useTRPC } from "../../_components/trpc-provider";

interface Invitation {
  tenantName: string;
  email: string;
  rights: string[];
  state: string;
  expiresAt: string;
}

const STATE_TEXT: Record<string, string> = {
  accepted: "This invitation has already been accepted.",
  canceled: "This invitation was revoked.",
  rejected: "This invitation was declined.",
  expired: "This invitation has expired.",
};

/**
 * Accepting an invitation: sign in with an existing account and join, or join with a new account (made
 * together with its membership) and sign in. The page is not told which applies to the invited email.
 */
export function AcceptInvitation({
  token,
  invitation: inv,
  signedInAs,
}: {
  token: string;
  invitation: Invitation;
  signedInAs: string | null;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const [error, setError] = useState<ConsoleError | null>(null);
  const accept = useMutation(trpc.team.accept.mutationOptions());
  const createAccount = useMutation(trpc.team.createAccount.mutationOptions());
  // The tenant joined, once the account and its membership exist: when the sign-in after it is refused
  // (the sign-in limits answer "Too many requests"), submitting again only signs in.
  const joined = useRef<string | null>(null);
  const here = `/console/invitations/${token}`;

  const open = (tenantId: string) => {
    router.push(`/console?tenant=${tenantId}`);
    router.refresh();
  };
  const join = async () => open((await accept.mutateAsync({ token })).tenantId);

  const intro = (
    <p>
      <strong>{inv.tenantName}</strong> invites <strong>{inv.email}</strong> to its team with the rights:{" "}
      {inv.rights.length ? inv.rights.map((r) => <code key={r}>{r} </code>) : "none (read only)"}.
    </p>
  );
  if (inv.state !== "pending")
    return (
      <>
        {intro}
        <p className="notice" role="alert">
          {STATE_TEXT[inv.state] ?? "This invitation cannot be used."} Ask for a new one if you still need access.
        </p>
      </>
    );
  if (signedInAs && signedInAs !== inv.email)
    return (
      <>
        {intro}
        <p className="notice" role="alert">
          You are signed in as {signedInAs}; this invitation is for {inv.email}. Sign out and open the link again.
        </p>
        <button
          type="button"
          onClick={async () => {
            await authClient.signOut();
            router.refresh();
          }}
        >
          Sign out
        </button>
      </>
    );
  if (signedInAs)
    return (
      <>
        {intro}
        <ErrorBox error={(error ?? accept.error) as ConsoleError | null} />
        <button
          type="button"
          disabled={accept.isPending}
          onClick={() => join().catch((e: ConsoleError) => setError(e))}
        >
          {accept.isPending ? "Joining…" : `Join ${inv.tenantName}`}
        </button>
      </>
    );
  return (
    <>
      {intro}
      <p>
        Already have a console account with {inv.email}?{" "}
        <Link href={`/console/sign-in?next=${encodeURIComponent(here)}`}>Sign in to accept</Link>.
      </p>
      <h2>New to the console</h2>
      <form
        className="stack"
        onSubmit={async (e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          const password = String(f.get("password"));
          setError(null);
          if (password !== String(f.get("repeat")))
            return setError({ message: "The two passwords differ; type the same password twice." });
          try {
            joined.current ??= (
              await createAccount.mutateAsync({ token, name: String(f.get("name")), password })
            ).tenantId;
            const signedIn = await authClient.signIn.email({ email: inv.email, password });
            if (signedIn.error) throw { message: signedIn.error.message ?? "Sign-in failed; try again." };
            open(joined.current);
          } catch (err) {
            setError(err as ConsoleError);
          }
        }}
      >
        <label>
          Email
          <input value={inv.email} readOnly autoComplete="username" />
        </label>
        <label>
          Your name
          <input name="name" required autoComplete="name" />
        </label>
        <label>
          Password <span className="hint">10 to 128 characters</span>
          <input name="password" type="password" minLength={10} maxLength={128} required autoComplete="new-password" />
        </label>
        <label>
          Repeat the password
          <input name="repeat" type="password" required autoComplete="new-password" />
        </label>
        <ErrorBox error={error} />
        <button type="submit" disabled={createAccount.isPending}>
          {createAccount.isPending ? "Joining…" : "Set password and join"}
        </button>
      </form>
    </>
  );
}
