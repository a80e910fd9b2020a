import type { Command } from "commander";
import { listedAsMemories } from "../../scope/layout-match.js";
import { readLayoutFile } from "../layout-file.js";
import { HIDDEN_NAMESPACE_ROOTS } from "../../store/hidden-namespaces.js";
import { CliError } from "../../errors.js";
import { formatNamespace, parseNamespace } from "../namespace-arg.js";
import { requireStore, storeDir } from "../open-store.js";
import { clip, formatBytes, plural, printFields, printJson, printTable, valueText } from "../output.js";
import { openReadSource } from "../source.js";
import { globals, intOption } from "./globals.js";
import { fileSize } from "../../store/hnsw/files.js";
import fs from "node:fs";
import path from "node:path";

export function registerReadCommands(program: Command): void {
  program
    .command("stats")
    .description("items, namespaces, vectors, embedder and file sizes of the directory")
    .action(async (_o, cmd: Command) => {
      const g = globals(cmd);
      const dir = storeDir(g.path);
      const manifest = requireStore(dir);
      const source = await openReadSource(dir);
      try {
        const namespaces = await source.namespaces([], { includeHidden: true });
        const memories = namespaces.filter((n) => !HIDDEN_NAMESPACE_ROOTS.includes(n.namespace[0]));
        const stats = source.store ? await source.store.stats() : undefined;
        const files: Record<string, number> = stats?.files ?? Object.fromEntries(fs.readdirSync(dir).map((f) => [f, fileSize(path.join(dir, f))]));
        const out = {
          path: dir,
          items: namespaces.reduce((s, n) => s + n.items, 0),
          memories: memories.reduce((s, n) => s + n.items, 0),
          namespaces: memories.length,
          cursors: namespaces.length - memories.length,
          vectors: stats?.vectors ?? null,
          embedder: manifest?.index?.embedder ?? null,
          dims: manifest?.index?.dims ?? null,
          fields: manifest?.index?.fields ?? null,
          generation: manifest?.generation ?? 0,
          logBytes: stats?.logBytes ?? files[`wal-${manifest?.generation ?? 0}.log`] ?? 0,
          diskBytes: Object.values(files).reduce((s, n) => s + n, 0),
          livePid: source.livePid ?? null,
        };
        if (g.json) return printJson(out);
        printFields([
          ["path", out.path],
          ["items", `${out.items} (${plural(out.memories, "memory", "memories")} in ${plural(out.namespaces, "namespace")}, ${plural(out.cursors, "bookkeeping namespace")})`],
          ["vectors", out.vectors ?? "(not loaded: read-only view)"],
          ["embedder", out.embedder ? `${out.embedder} (${out.dims} dims, fields ${JSON.stringify(out.fields)})` : "none (keyword search only)"],
          ["generation", out.generation],
          ["log", formatBytes(out.logBytes)],
          ["on disk", formatBytes(out.diskBytes)],
          ...(out.livePid !== null ? ([["in use by", `process ${out.livePid}`]] as [string, string][]) : []),
        ]);
      } finally {
        await source.close();
      }
    });

  program
    .command("ls")
    .argument("[prefix]", "namespace prefix, dotted (users.42) or a JSON array")
    .option("-a, --all", "also list the bookkeeping namespaces (memory_cursors, memory_history, episode_cursors, procedure_feedback) and learned instructions")
    .option("--layout <file>", "a JSON memory layout (as `serve --layout`)")
    .description("namespaces of memories with their item counts (learned instructions: `procedures list`; bookkeeping only with --all or a prefix naming it)")
    .action(async (prefixArg: string | undefined, o: { all?: boolean; layout?: string }, cmd: Command) => {
      const g = globals(cmd);
      const prefix = parseNamespace(prefixArg, "namespace prefix", { allowEmpty: true });
      const layout = readLayoutFile(o.layout);
      const source = await openReadSource(storeDir(g.path));
      try {
        // Kinds shown as kinds: learned instructions have their own command, bookkeeping is never a memory.
        const named = (ns: string[]) => prefix.length > 0 && prefix[0] === ns[0];
        const rows = (await source.namespaces(prefix, { includeHidden: o.all })).filter(
          (r) => o.all || named(r.namespace) || listedAsMemories(layout, r.namespace),
        );
        if (g.json) return printJson(rows);
        if (rows.length === 0) return void process.stdout.write(`no namespaces under ${prefix.length ? formatNamespace(prefix) : "the root"}\n`);
        printTable(["NAMESPACE", "ITEMS"], rows.map((r) => [formatNamespace(r.namespace), r.items]));
      } finally {
        await source.close();
      }
    });

  program
    .command("get")
    .argument("<namespace>", "dotted (users.42) or a JSON array")
    .argument("<key>")
    .description("one item: its value and timestamps")
    .action(async (nsArg: string, key: string, _o, cmd: Command) => {
      const g = globals(cmd);
      const ns = parseNamespace(nsArg);
      const source = await openReadSource(storeDir(g.path));
      try {
        const item = await source.get(ns, key);
        if (!item) throw new CliError(`no item ${JSON.stringify(key)} in ${formatNamespace(ns)}`);
        if (g.json) return printJson(item);
        printFields([
          ["namespace", formatNamespace(item.namespace)],
          ["key", item.key],
          ["created", item.createdAt.toISOString()],
          ["updated", item.updatedAt.toISOString()],
          ["value", JSON.stringify(item.value, null, 2)],
        ]);
      } finally {
        await source.close();
      }
    });

  program
    .command("search")
    .argument("<namespace>", "namespace prefix, dotted (users.42) or a JSON array")
    .argument("<query>")
    .option("--filter <json>", "exact-match / operator filter on the value, as JSON")
    .option("--limit <n>", "results to show", "10")
    .option("--embeddings <name>", "embedder for ranking by meaning (default: the directory's own when known; else keywords)")
    .description("search items by meaning (or by keywords without the embedder)")
    .action(async (nsArg: string, query: string, o: { filter?: string; limit: string; embeddings?: string }, cmd: Command) => {
      const g = globals(cmd);
      const ns = parseNamespace(nsArg, "namespace prefix", { allowEmpty: true });
      const limit = intOption(o.limit, "--limit", 1);
      let filter: Record<string, unknown> | undefined;
      if (o.filter !== undefined) {
        try {
          filter = JSON.parse(o.filter);
        } catch {
          throw new CliError(`--filter is not valid JSON: ${o.filter}`);
        }
        if (!filter || typeof filter !== "object" || Array.isArray(filter)) throw new CliError("--filter must be a JSON object");
      }
      const src = await openReadSource(storeDir(g.path), { rankByMeaning: true, embeddings: o.embeddings });
      try {
        const hits = await src.search(ns, { query, filter, limit });
        if (g.json) return printJson(hits);
        if (hits.length === 0) return void process.stdout.write("no matches\n");
        printTable(
          ["SCORE", "NAMESPACE", "KEY", "TEXT"],
          hits.map((h) => [h.score === undefined ? "-" : h.score.toFixed(3), formatNamespace(h.namespace), h.key, clip(valueText(h.value))]),
        );
      } finally {
        await src.close();
      }
    });
}

