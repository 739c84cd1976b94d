import { ResetPasswordForm } from "./reset-password-form";

export const dynamic = "force-dynamic";

/**
 * `/console/reset-password/<token>`: the page a password reset link opens (mailed by better-auth's reset,
 * or printed for an operator by `staff:reset-password`). The token is checked when the new password is
 * sent; using it ends every session of the account (issue 76 item 2).
 */
export default async function ResetPasswordPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return (
    <div className="console bare">
      <main className="card">
        <h1>Set a new password</h1>
        <ResetPasswordForm token={token} />
      </main>
    </div>
  );
}
