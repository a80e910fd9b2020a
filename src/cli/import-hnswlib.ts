import fs from "node:fs";
import { CliError } from "../errors.js";
import { readManifest } from "../store/hnsw/snapshot.js";
import type { MemoryEntry } from "../migrate/entry.js";
import { chooseEmbedder, knownEmbedderFor } from "./embedders.js";
import { importItems } from "./import-items.js";
import { isStoreDir } from "./open-store.js";
import type { Cancellation, Progress } from "./progress.js";

/**
 * Imports a directory saved by LangChain's `HNSWLib` vector store
 * (`@langchain/community`), loaded with its own `HNSWLib.load`. Each
 * document becomes an item `{ text: pageContent, metadata }` in `namespace`,
 * keyed by its id (or its docstore id), indexed on `text`. Its vector is
 * reused when the embedder (`--embeddings`, taken to be the one that built
 * the HNSWLib directory) is the target directory's and dims match; otherwise
 * the text is embedded again with the target's embedder.
 */
export async function importFromHnswlib(args: {
  dir: string;
  source: string;
  namespace: string[];
  embeddings?: string;
  progress?: Progress;
  cancel?: Cancellation;
  batchSize?: number;
}): Promise<{ imported: number; reusedVectors: boolean }> {
  for (const f of ["args.json", "docstore.json", "hnswlib.index"]) {
    if (!fs.existsSync(`${args.source}/${f}`)) throw new CliError(`${args.source} is not an HNSWLib directory (no ${f})`);
  }
  const target = fs.existsSync(args.dir) && isStoreDir(args.dir) ? readManifest(args.dir) : null;
  const choice = args.embeddings ?? (target?.index ? knownEmbedderFor(target.index.embedder) : undefined);
  if (!choice) throw new CliError("--from-hnswlib needs --embeddings: the embedder that built the HNSWLib directory (local, openai or a module path)");
  const embedder = await chooseEmbedder(choice);
  let mod: typeof import("@langchain/community/vectorstores/hnswlib");
  try {
    mod = await import("@langchain/community/vectorstores/hnswlib");
  } catch {
    throw new CliError("The '@langchain/community' package is required for import --from-hnswlib. Install it with: npm install @langchain/community");
  }
  let vs: InstanceType<typeof mod.HNSWLib>;
  try {
    vs = await mod.HNSWLib.load(args.source, embedder.embeddings);
  } catch (err) {
    throw new CliError(`HNSWLib.load(${args.source}) failed: ${(err as Error).message}`);
  }
  const dims = vs.args.numDimensions ?? vs.index.getNumDimensions();
  const now = Date.now();
  const items: MemoryEntry[] = [];
  for (const [id, doc] of vs.docstore._docs) {
    const label = Number(id);
    const value: Record<string, unknown> = { text: doc.pageContent };
    if (doc.metadata && Object.keys(doc.metadata).length) value.metadata = doc.metadata;
    const item: MemoryEntry = { namespace: args.namespace, key: typeof doc.id === "string" && doc.id ? doc.id : String(id), value, createdAt: now, updatedAt: now, index: ["text"] };
    if (Number.isInteger(label) && dims === embedder.dims) item.vectors = [{ field: "text", vector: vs.index.getPoint(label) }];
    items.push(item);
  }
  const fields = target?.index?.fields ?? ["$"];
  const header = { embedder: dims === embedder.dims ? { identity: embedder.identity, dims, fields } : null, fields };
  const result = await importItems({ dir: args.dir, header, items, embeddings: choice, progress: args.progress, cancel: args.cancel, batchSize: args.batchSize });
  return { imported: result.imported, reusedVectors: result.reusedVectors };
}
