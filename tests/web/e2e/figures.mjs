// Prints the figures the specs recorded (one JSON object a line) as a table.
// Usage: node figures.mjs ARTIFACTS_DIR/figures.jsonl
import { existsSync, readFileSync } from "node:fs";

const file = process.argv[2];
const rows = existsSync(file)
  ? readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line))
  : [];
console.log("== web client figures (issue 17 §4)");
if (!rows.length) {
  console.log("(no figures recorded)");
  process.exit(0);
}
const cells = rows.map((r) => [
  r.name,
  typeof r.value === "number" ? String(Math.round(r.value * 10) / 10) : String(r.value),
  r.unit,
  r.bound,
]);
const head = ["figure", "value", "unit", "aim"];
const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
const line = (c) => c.map((v, i) => (i === 1 ? v.padStart(widths[i]) : v.padEnd(widths[i]))).join("  ");
console.log(line(head));
console.log(widths.map((w) => "-".repeat(w)).join("  "));
for (const c of cells) console.log(line(c));
