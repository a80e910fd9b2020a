/** One line of a {@link lineDiff}: kept (` `), added (`+`) or removed (`-`). */
export interface DiffLine {
  op: " " | "+" | "-";
  text: string;
}

/** A line diff between two texts, for review. */
export interface LineDiff {
  /** Every line, in order. */
  lines: DiffLine[];
  added: number;
  removed: number;
  /** The diff as text: one line per line, prefixed `+ `, `- ` or `  `. */
  text: string;
}

/** Past this many cells the LCS table is not built: every line counts as changed. */
const MAX_CELLS = 4_000_000;

const splitLines = (s: string): string[] => (s === "" ? [] : s.replace(/\r\n/g, "\n").split("\n"));

/**
 * The line diff from `before` to `after` (longest common subsequence of
 * lines). Texts too large to compare (over 4M line pairs) diff as all lines
 * removed then all added, which only overstates the change.
 */
export function lineDiff(before: string, after: string): LineDiff {
  const a = splitLines(before);
  const b = splitLines(after);
  const lines: DiffLine[] = [];
  if (a.length * b.length > MAX_CELLS) {
    for (const text of a) lines.push({ op: "-", text });
    for (const text of b) lines.push({ op: "+", text });
  } else {
    // lcs[i][j] = length of the LCS of a[i..] and b[j..], in one flat array.
    const w = b.length + 1;
    const lcs = new Uint32Array((a.length + 1) * w);
    for (let i = a.length - 1; i >= 0; i--) {
      for (let j = b.length - 1; j >= 0; j--) {
        lcs[i * w + j] = a[i] === b[j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < a.length || j < b.length) {
      if (i < a.length && j < b.length && a[i] === b[j]) {
        lines.push({ op: " ", text: a[i++] });
        j++;
      } else if (j < b.length && (i >= a.length || lcs[i * w + j + 1] > lcs[(i + 1) * w + j])) {
        lines.push({ op: "+", text: b[j++] });
      } else {
        lines.push({ op: "-", text: a[i++] });
      }
    }
  }
  const added = lines.filter((l) => l.op === "+").length;
  const removed = lines.filter((l) => l.op === "-").length;
  return { lines, added, removed, text: lines.map((l) => `${l.op} ${l.text}`).join("\n") };
}
