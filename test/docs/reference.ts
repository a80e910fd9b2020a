/**
 * Builds docs/reference/errors.md and docs/reference/options.md from the source:
 * every error class in src/errors.ts, and every `…Options` / `…Config` type the
 * package's entry points export, with each field's type, its TSDoc and its
 * `@default`. `npm run docs:reference` writes them; `npm run test:docs` fails when
 * they are out of date, so the reference cannot drift from the code.
 */
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

const root = path.resolve(import.meta.dirname, "../..");

/** The package's entry points and the import path users write for each. */
export const ENTRY_POINTS: Record<string, string> = {
  "langgraph-hnsw-memory": "src/index.ts",
  "langgraph-hnsw-memory/agent": "src/agent/index.ts",
  "langgraph-hnsw-memory/server": "src/server/index.ts",
  "langgraph-hnsw-memory/remote": "src/store/remote/index.ts",
  "langgraph-hnsw-memory/postgres": "src/store/postgres/index.ts",
};

function program(): ts.Program {
  const config = ts.readConfigFile(path.join(root, "tsconfig.build.json"), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  return ts.createProgram(parsed.fileNames, { ...parsed.options, noEmit: true });
}

const cell = (s: string) =>
  s
    .replace(/\{@link\s+([^}|\s]+)(?:\s*\|?\s*[^}]*)?\}/g, "`$1`")
    .replace(/\s+/g, " ")
    .replace(/\|/g, "\\|")
    .trim();

function docOf(checker: ts.TypeChecker, symbol: ts.Symbol): string {
  return ts.displayPartsToString(symbol.getDocumentationComment(checker)).split(/\n\s*\n/)[0] ?? "";
}

function defaultOf(symbol: ts.Symbol): string | undefined {
  const tag = symbol.getJsDocTags().find((t) => t.name === "default" || t.name === "defaultValue");
  return tag ? ts.displayPartsToString(tag.text).trim() : undefined;
}

function fromSource(decl: ts.Declaration | undefined): boolean {
  const file = decl?.getSourceFile().fileName ?? "";
  return file.startsWith(path.join(root, "src"));
}

/** docs/reference/errors.md */
export function errorsReference(): string {
  const prog = program();
  const checker = prog.getTypeChecker();
  const file = prog.getSourceFile(path.join(root, "src/errors.ts"));
  if (!file) throw new Error("src/errors.ts not in the program");
  const moduleSymbol = checker.getSymbolAtLocation(file)!;
  const rows: string[] = [];
  for (const sym of checker.getExportsOfModule(moduleSymbol).sort((a, b) => a.name.localeCompare(b.name))) {
    const decl = sym.declarations?.[0];
    if (!decl || !ts.isClassDeclaration(decl)) continue;
    const base = decl.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0]?.expression.getText() ?? "Error";
    rows.push(`| \`${sym.name}\` | \`${base.replace(/^LangGraph/, "LangGraph's ")}\` | ${cell(docOf(checker, sym))} |`);
  }
  return [
    "# Named errors",
    "",
    "<!-- Generated from src/errors.ts by `npm run docs:reference`; `npm run test:docs` checks it is current. -->",
    "",
    "Every error the package throws is one of these classes (all exported from `langgraph-hnsw-memory`),",
    "each with its `name` set and the offending value in its message. `MemoryError` is the base of all",
    "but `InvalidNamespaceError`, which extends LangGraph's own class so that code written against any",
    "`BaseStore` catches it. Over HTTP the server answers `{ error: <name>, message, statusCode }` and",
    "`RemoteStore` throws the same class again.",
    "",
    "| error | extends | when |",
    "|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}

/** docs/reference/options.md */
export function optionsReference(): string {
  const prog = program();
  const checker = prog.getTypeChecker();
  const sections: string[] = [];
  const seen = new Set<string>();
  for (const [importPath, entry] of Object.entries(ENTRY_POINTS)) {
    const file = prog.getSourceFile(path.join(root, entry));
    if (!file) continue;
    const moduleSymbol = checker.getSymbolAtLocation(file);
    if (!moduleSymbol) continue;
    const exports = checker.getExportsOfModule(moduleSymbol).sort((a, b) => a.name.localeCompare(b.name));
    for (const exported of exports) {
      if (!/(Options|Config)$/.test(exported.name) || seen.has(exported.name)) continue;
      const sym = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const decl = sym.declarations?.[0];
      if (!decl || !fromSource(decl) || !(ts.isInterfaceDeclaration(decl) || ts.isTypeAliasDeclaration(decl))) continue;
      seen.add(exported.name);
      const type = checker.getDeclaredTypeOfSymbol(sym);
      const props = checker.getPropertiesOfType(type).filter((p) => fromSource(p.declarations?.[0]));
      if (!props.length) continue;
      const rows = props.map((p) => {
        const pd = p.declarations![0];
        const t = checker.typeToString(checker.getTypeOfSymbolAtLocation(p, pd), undefined, ts.TypeFormatFlags.NoTruncation);
        const bare = p.flags & ts.SymbolFlags.Optional ? t.replace(/ \| undefined$/, "") : t;
        const shortType = bare.length > 70 ? `${bare.slice(0, 67)}…` : bare;
        const optional = p.flags & ts.SymbolFlags.Optional ? "" : " (required)";
        return `| \`${p.name}\`${optional} | \`${cell(shortType)}\` | ${cell(defaultOf(p) ?? "—")} | ${cell(docOf(checker, p))} |`;
      });
      sections.push(
        `## \`${exported.name}\``,
        "",
        `From \`${importPath}\` (${path.relative(root, decl.getSourceFile().fileName)}). ${cell(docOf(checker, sym))}`,
        "",
        "| option | type | default | meaning |",
        "|---|---|---|---|",
        ...rows,
        "",
      );
    }
  }
  return [
    "# Options",
    "",
    "<!-- Generated from the source's TSDoc by `npm run docs:reference`; `npm run test:docs` checks it is current. -->",
    "",
    "Every options object the package's entry points export, field by field: its type, its `@default`",
    "(— where none applies or it is required) and what it means. Durations are in minutes unless the",
    "name says otherwise.",
    "",
    ...sections,
  ].join("\n");
}

export const REFERENCE_FILES: Record<string, () => string> = {
  "docs/reference/errors.md": errorsReference,
  "docs/reference/options.md": optionsReference,
};

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  for (const [file, make] of Object.entries(REFERENCE_FILES)) {
    fs.writeFileSync(path.join(root, file), make());
    console.log(`wrote ${file}`);
  }
}
