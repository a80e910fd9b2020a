import fs from "node:fs";
import path from "node:path";

/** One fenced code block of a Markdown file. */
export interface CodeBlock {
  /** The Markdown file, relative to the project root. */
  file: string;
  /** 1-based line of the block's first code line. */
  line: number;
  /** The fence's info string words after the language, e.g. `["run"]`. */
  flags: string[];
  code: string;
}

const TS = new Set(["ts", "typescript"]);

/** Every Markdown file the docs promise: the README and everything under docs/. */
export function markdownFiles(root: string): string[] {
  const out = ["README.md"];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith(".md")) out.push(rel);
    }
  };
  if (fs.existsSync(path.join(root, "docs"))) walk("docs");
  return out.filter((f) => fs.existsSync(path.join(root, f))).sort();
}

/** The ```ts blocks of one Markdown text (nested fences inside list items included). */
export function tsBlocks(file: string, text: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = text.split("\n");
  let open: { indent: string; fence: string; lang: string; flags: string[]; line: number; body: string[] } | null = null;
  lines.forEach((raw, i) => {
    const m = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)\s*(.*)$/.exec(raw);
    if (!open) {
      if (m) open = { indent: m[1], fence: m[2], lang: m[3].toLowerCase(), flags: m[4].split(/\s+/).filter(Boolean), line: i + 2, body: [] };
      return;
    }
    if (m && m[2].startsWith(open.fence[0]) && m[2].length >= open.fence.length && !m[3] && !m[4]) {
      if (TS.has(open.lang)) blocks.push({ file, line: open.line, flags: open.flags, code: open.body.join("\n") });
      open = null;
      return;
    }
    open.body.push(raw.startsWith(open.indent) ? raw.slice(open.indent.length) : raw.trimStart());
  });
  return blocks;
}

/** A file name for a block: `docs/server.md` line 12 → `docs__server.md__L12.ts`. */
export function blockFileName(block: CodeBlock): string {
  return `${block.file.replace(/[\\/]/g, "__")}__L${block.line}.ts`;
}
