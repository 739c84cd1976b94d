// The npm registry reachable on our build machines serves only Linux builds of platform packages, so
// `npm install` here writes a lock without the other platforms' optional packages, and `npm ci` then
// refuses the lock ("Missing: ... from lock file"). This adds those entries with their os/cpu, as a
// lock written elsewhere would have them; npm skips them on other platforms without fetching.
// Run after `npm install`: node scripts/complete-lockfile.mjs
import { readFileSync, writeFileSync } from "node:fs";

const file = process.argv[2] ?? "package-lock.json";
const lock = JSON.parse(readFileSync(file, "utf8"));
const OS = ["darwin", "win32", "android", "freebsd", "openharmony", "linux", "sunos", "aix", "openbsd", "netbsd"];
const CPU = ["arm64", "x64", "ia32", "arm", "loong64", "ppc64", "riscv64", "s390x", "wasm32", "mips64el"];
let added = 0;
for (const [path, pkg] of Object.entries(lock.packages)) {
  for (const [name, range] of Object.entries(pkg.optionalDependencies ?? {})) {
    const base = path ? `${path}/node_modules/${name}` : `node_modules/${name}`;
    if (lock.packages[base] || lock.packages[`node_modules/${name}`]) continue;
    const parts = name.split("/").pop().split("-");
    const os = OS.find((o) => parts.includes(o)) ?? (parts.includes("win32") ? "win32" : undefined);
    const cpu =
      CPU.find((c) => parts.includes(c)) ??
      (parts.includes("eabi") || parts.includes("gnueabihf") || parts.includes("musleabihf") ? "arm" : undefined);
    if (!os && !cpu) continue;
    const entry = { version: String(range).replace(/^[\^~=]/, ""), optional: true };
    if (os) entry.os = [os];
    if (cpu) entry.cpu = [cpu];
    if (parts.includes("musl") || parts.includes("musleabihf")) entry.libc = ["musl"];
    else if (os === "linux") entry.libc = ["glibc"];
    lock.packages[`node_modules/${name}`] = entry;
    added++;
  }
}
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} platform entries`);
