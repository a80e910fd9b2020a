import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Embeddings } from "@langchain/core/embeddings";
import { CliError } from "../errors.js";
import { embedderIdentity } from "../embeddings/identity.js";
import { UniversalSentenceEncoderEmbeddings } from "../embeddings/universal-sentence-encoder.js";

/** An embedder chosen on the command line, with its output size. */
export interface ChosenEmbedder {
  embeddings: Embeddings;
  dims: number;
  identity: string;
}

/**
 * Resolves `--embeddings`:
 * - `local`: the bundled Universal Sentence Encoder lite (512 dims, offline);
 * - `openai`: `OpenAIEmbeddings` from `@langchain/openai` (an optional peer),
 *   model `$OPENAI_EMBEDDINGS_MODEL` or text-embedding-3-small, key
 *   `$OPENAI_API_KEY`, server `$OPENAI_BASE_URL`;
 * - a path to a module (`./my-embedder.js`) whose default export (or
 *   `embeddings` export) is an `Embeddings` instance or a function returning one.
 * The output size is measured with one `embedQuery`.
 */
export async function chooseEmbedder(choice: string, env: NodeJS.ProcessEnv = process.env): Promise<ChosenEmbedder> {
  let embeddings: Embeddings;
  if (choice === "local") {
    embeddings = new UniversalSentenceEncoderEmbeddings();
    return { embeddings, dims: 512, identity: embedderIdentity(embeddings) };
  }
  if (choice === "openai") {
    if (!env.OPENAI_API_KEY) throw new CliError("--embeddings openai needs OPENAI_API_KEY (and OPENAI_BASE_URL for a compatible server)");
    let mod: typeof import("@langchain/openai");
    try {
      mod = await import("@langchain/openai");
    } catch {
      throw new CliError("The '@langchain/openai' package is required for --embeddings openai. Install it with: npm install @langchain/openai");
    }
    const baseURL = env.OPENAI_BASE_URL;
    embeddings = new mod.OpenAIEmbeddings({
      model: env.OPENAI_EMBEDDINGS_MODEL ?? "text-embedding-3-small",
      apiKey: env.OPENAI_API_KEY,
      maxRetries: 2,
      configuration: baseURL ? { baseURL } : undefined,
    });
  } else if (/[/\\]|\.[cm]?[jt]s$/.test(choice)) {
    const file = path.resolve(choice);
    let mod: Record<string, unknown>;
    try {
      mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    } catch (err) {
      throw new CliError(`cannot load the embedder module ${file}: ${(err as Error).message}`);
    }
    let exported = mod.default ?? mod.embeddings;
    if (typeof exported === "function" && !(exported as { prototype?: { embedQuery?: unknown } }).prototype?.embedQuery) exported = await (exported as () => unknown)();
    if (!exported || typeof (exported as Embeddings).embedDocuments !== "function") {
      throw new CliError(`the embedder module ${file} must export (default or "embeddings") an Embeddings instance or a function returning one`);
    }
    embeddings = exported as Embeddings;
  } else {
    throw new CliError(`--embeddings must be local, openai or a path to an embedder module, got ${JSON.stringify(choice)}`);
  }
  let probe: number[];
  try {
    probe = await embeddings.embedQuery("dimension probe");
  } catch (err) {
    throw new CliError(`the embedder ${embedderIdentity(embeddings)} failed: ${(err as Error).message}`);
  }
  return { embeddings, dims: probe.length, identity: embedderIdentity(embeddings) };
}

/**
 * The `--embeddings` value that recreates the embedder a directory records,
 * when it is one this CLI knows (the local model always; OpenAI when a key is
 * set), else undefined.
 */
export function knownEmbedderFor(identity: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (identity.startsWith("UniversalSentenceEncoderEmbeddings:")) return "local";
  if (identity.startsWith("OpenAIEmbeddings:") && env.OPENAI_API_KEY) {
    const model = identity.slice("OpenAIEmbeddings:".length).split("@")[0];
    if (!env.OPENAI_EMBEDDINGS_MODEL || env.OPENAI_EMBEDDINGS_MODEL === model) return "openai";
  }
  return undefined;
}
