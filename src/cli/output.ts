/** Output helpers: human tables by default, JSON with `--json`. */

/** Writes `value` as JSON on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + "\n");
}

/** Shortens `text` to `max` characters, on one line. */
export function clip(text: string, max = 60): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > max ? one.slice(0, max - 1) + "…" : one;
}

/** Prints rows as an aligned table with a header line. */
export function printTable(columns: string[], rows: (string | number)[][]): void {
  const cells = [columns, ...rows.map((r) => r.map((c) => String(c)))];
  const widths = columns.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join("  ").trimEnd();
  process.stdout.write([line(cells[0]), line(widths.map((w) => "-".repeat(w))), ...cells.slice(1).map(line)].join("\n") + "\n");
}

/** Prints `label: value` pairs, aligned. */
export function printFields(fields: [string, string | number][]): void {
  const w = Math.max(...fields.map(([k]) => k.length));
  process.stdout.write(fields.map(([k, v]) => `${(k + ":").padEnd(w + 1)} ${v}`).join("\n") + "\n");
}

/** A short human text for a stored value: its `text` field, or its JSON. */
export function valueText(value: Record<string, unknown>): string {
  return typeof value.text === "string" ? value.text : typeof value.content === "string" ? value.content : JSON.stringify(value);
}

/** Bytes as "12.3 KiB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB"];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}

/** "1 namespace", "2 namespaces": a count with its noun in the right number. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
