import { SignInForm } from "./sign-in-form";

export const dynamic = "force-dynamic";

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await searchParams;
  // Only our own console paths are followed after sign-in (no open redirect).
  const target = typeof next === "string" && next.startsWith("/console") && !next.startsWith("//") ? next : "/console";
  return (
    <div className="console bare">
      <main className="card">
        <h1>Sign in to the console</h1>
        <SignInForm next={target} />
      </main>
    </div>
  );
}
