export const dynamic = "force-dynamic";

export default function ConsoleHome() {
  return (
    <main style={{ maxWidth: 720, margin: "48px auto", padding: "0 16px", lineHeight: 1.5 }}>
      <h1>Tenant console</h1>
      <p>
        The console pages (sign-in, integrations, keys, wallet) are being built under issue 4. Until they land,
        operators manage tenants, integrations, keys and wallets with <code>npm run admin</code> (see the README).
      </p>
    </main>
  );
}
