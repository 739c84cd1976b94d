import Link from "next/link";
import { env } from "@/server/env";
import { ForgotPasswordForm } from "./forgot-password-form";

export const dynamic = "force-dynamic";

/**
 * `/console/forgot-password` (issue 76 item 2): asks better-auth to mail a one-time link that sets a new
 * password to the account's own address. Without mail (`SMTP_URL` unset) nothing can be mailed, so the
 * page offers no form and says to ask an operator (`npm run admin -- staff:reset-password`).
 */
export default function ForgotPasswordPage() {
  const mailConfigured = Boolean(env().smtpUrl);
  return (
    <div className="console bare">
      <main className="card">
        <h1>Forgot your password?</h1>
        {mailConfigured ? (
          <>
            <p>
              Enter the email of your console account. We mail a link that sets a new password; it works once, for an
              hour.
            </p>
            <ForgotPasswordForm />
          </>
        ) : (
          <>
            <p className="notice" role="note">
              This server sends no mail, so no link can be mailed. Ask your platform operator for a reset link (they run{" "}
              <code>npm run admin -- staff:reset-password</code>).
            </p>
            <p className="hint">
              <Link href="/console/sign-in">Back to sign-in</Link>
            </p>
          </>
        )}
      </main>
    </div>
  );
}
