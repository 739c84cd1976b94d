// Prints what a vitest JSON report (`--reporter=json --outputFile.json=F`) says went wrong: every failed test
// with the first lines of its error, and every test that failed and then passed on its retry (a flaky test:
// CI retries a failed test once, and names it here so that it is fixed, not forgotten). CI prints this at
// the very end of its output, where its summary is read.
//   node scripts/ci-test-summary.mjs <label> <report.json>
import { existsSync, readFileSync } from "node:fs";

const [label, file] = process.argv.slice(2);
if (!file || !existsSync(file)) {
  console.log(`-- ${label}: no test report (${file ?? "none given"}): the run ended before vitest wrote it`);
  process.exit(0);
}
const report = JSON.parse(readFileSync(file, "utf8"));
const failed = [];
const flaky = [];
for (const f of report.testResults ?? []) {
  const name = f.name.replace(process.cwd() + "/", "");
  if (f.status === "failed" && (f.assertionResults ?? []).every((a) => a.status !== "failed"))
    failed.push(
      `${name}: ${String(f.message ?? "the file failed outside its tests")
        .split("\n")
        .slice(0, 6)
        .join("\n    ")}`,
    );
  for (const a of f.assertionResults ?? []) {
    const title = `${name} > ${[...(a.ancestorTitles ?? []), a.title].join(" > ")}`;
    if (a.status === "failed")
      failed.push(`${title}\n    ${(a.failureMessages ?? []).join("\n").split("\n").slice(0, 8).join("\n    ")}`);
    // A test that passed on its retry keeps the failed attempt's error (vitest's JSON report has no retry count).
    else if (a.status === "passed" && (a.failureMessages ?? []).length > 0)
      flaky.push(`${title}\n    ${a.failureMessages[0].split("\n").slice(0, 4).join("\n    ")}`);
  }
}
console.log(
  `-- ${label}: ${report.numPassedTests ?? 0} passed, ${report.numFailedTests ?? 0} failed, ${flaky.length} flaky (passed on a retry)`,
);
for (const f of failed) console.log(`FAILED ${f}`);
for (const f of flaky) console.log(`FLAKY ${f}`);
