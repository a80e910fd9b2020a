import { Embeddings } from "@langchain/core/embeddings";
import { InvalidArgumentError, MissingPeerDependencyError } from "../errors.js";
import { embedderIdentity } from "./identity.js";

/** Any object with LangChain's two embedding methods (from any copy of `@langchain/core`, or none). */
export interface EmbeddingsInterfaceLike {
  embedDocuments(texts: string[]): Promise<number[][]>;
  embedQuery(text: string): Promise<number[]>;
}

/** A bare embedding function, as LangGraph's PostgresStore accepts: one vector per text. */
export type EmbeddingsFunc = (texts: string[]) => Promise<number[][]>;

/**
 * What a store's `index.embeddings` (or its alias `index.embed`) may be: an
 * embedder object, an embedding function, or a `"provider:model"` string
 * such as `"openai:text-embedding-3-small"` (resolved through the provider's
 * optional LangChain package when the store opens).
 */
export type EmbeddingsLike = EmbeddingsInterfaceLike | EmbeddingsFunc | string;

/** Provider prefix → the optional package and the class it exports. */
const PROVIDERS: Record<string, { packageName: string; className: string }> = {
  openai: { packageName: "@langchain/openai", className: "OpenAIEmbeddings" },
};

function isEmbeddingsObject(e: unknown): e is EmbeddingsInterfaceLike {
  return (
    typeof e === "object" &&
    e !== null &&
    typeof (e as EmbeddingsInterfaceLike).embedDocuments === "function" &&
    typeof (e as EmbeddingsInterfaceLike).embedQuery === "function"
  );
}

/** Whether `e` is something {@link toEmbeddings} or {@link resolveEmbeddings} accepts. */
export function isEmbeddingsLike(e: unknown): e is EmbeddingsLike {
  return typeof e === "function" || isEmbeddingsObject(e) || (typeof e === "string" && e.includes(":"));
}

/** An embedding function as a LangChain embedder. */
class FunctionEmbeddings extends Embeddings {
  constructor(private readonly fn: EmbeddingsFunc) {
    super({});
  }

  embedderIdentity(): string {
    return `function:${this.fn.name || "anonymous"}`;
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    return this.fn(texts);
  }

  async embedQuery(text: string): Promise<number[]> {
    const [v] = await this.fn([text]);
    if (!Array.isArray(v)) throw new InvalidArgumentError("the embedding function returned no vector for the query");
    return v;
  }
}

/**
 * An embedder object that is not an instance of this package's
 * `Embeddings` class (another copy of `@langchain/core`, or a plain object),
 * wrapped so it reports the same identity as the object itself.
 */
class ForeignEmbeddings extends Embeddings {
  constructor(readonly inner: EmbeddingsInterfaceLike) {
    super({});
  }

  embedderIdentity(): string {
    return embedderIdentity(this.inner);
  }

  embedDocuments(texts: string[]): Promise<number[][]> {
    return this.inner.embedDocuments(texts);
  }

  embedQuery(text: string): Promise<number[]> {
    return this.inner.embedQuery(text);
  }
}

/**
 * An embedder object or function as a LangChain `Embeddings` (returned as is
 * when it already is one). Strings need {@link resolveEmbeddings}.
 * @throws InvalidArgumentError for anything else
 */
export function toEmbeddings(e: EmbeddingsInterfaceLike | EmbeddingsFunc): Embeddings {
  if (e instanceof Embeddings) return e;
  if (typeof e === "function") return new FunctionEmbeddings(e);
  if (isEmbeddingsObject(e)) return new ForeignEmbeddings(e);
  throw new InvalidArgumentError(
    `embeddings must be an object with embedDocuments and embedQuery, a function (texts) => Promise<number[][]>, or a "provider:model" string; got ${describe(e)}`,
  );
}

/** Options for {@link resolveEmbeddings}. */
export interface ResolveEmbeddingsOptions {
  /**
   * Loads a provider package (tests inject one to simulate a missing package).
   * @default dynamic `import()`
   */
  importModule?: (name: string) => Promise<Record<string, unknown>>;
}

/**
 * Any {@link EmbeddingsLike} as a LangChain `Embeddings`. A
 * `"provider:model"` string is constructed (not called) from the provider's
 * optional package; only `openai` is known today.
 * @throws InvalidArgumentError for an unknown provider or a malformed value
 * @throws MissingPeerDependencyError when the provider's package is not installed
 */
export async function resolveEmbeddings(e: EmbeddingsLike, options: ResolveEmbeddingsOptions = {}): Promise<Embeddings> {
  if (typeof e !== "string") return toEmbeddings(e);
  const at = e.indexOf(":");
  const provider = at > 0 ? e.slice(0, at) : "";
  const model = at > 0 ? e.slice(at + 1) : "";
  const known = PROVIDERS[provider];
  if (!known || model === "") {
    throw new InvalidArgumentError(
      `embeddings string must be "provider:model" with a known provider (${Object.keys(PROVIDERS).join(", ")}), got ${JSON.stringify(e)}`,
    );
  }
  const load = options.importModule ?? ((name: string) => import(name) as Promise<Record<string, unknown>>);
  let mod: Record<string, unknown>;
  try {
    mod = await load(known.packageName);
  } catch {
    throw new MissingPeerDependencyError(known.packageName, `embeddings ${JSON.stringify(e)}`);
  }
  const Ctor = mod[known.className] as (new (fields: { model: string }) => Embeddings) | undefined;
  if (typeof Ctor !== "function") throw new MissingPeerDependencyError(known.packageName, `embeddings ${JSON.stringify(e)} (no ${known.className} export)`);
  return toEmbeddings(new Ctor({ model }));
}

/**
 * The embedder of an index config that may name it `embeddings`
 * (InMemoryStore) or `embed` (PostgresStore, `langgraph.json`).
 * @throws InvalidArgumentError when both are given and differ
 */
export function indexEmbedder(index: { embeddings?: unknown; embed?: unknown }): EmbeddingsLike | undefined {
  const { embeddings, embed } = index;
  if (embeddings !== undefined && embed !== undefined && embeddings !== embed) {
    throw new InvalidArgumentError("index has both `embeddings` and `embed`; give one (`embed` is an alias of `embeddings`)");
  }
  const e = embeddings ?? embed;
  if (e === undefined) return undefined;
  if (!isEmbeddingsLike(e)) {
    throw new InvalidArgumentError(
      `index.embeddings must be an object with embedDocuments and embedQuery, a function (texts) => Promise<number[][]>, or a "provider:model" string; got ${describe(e)}`,
    );
  }
  return e;
}

function describe(e: unknown): string {
  if (typeof e === "string") return JSON.stringify(e);
  if (e === null) return "null";
  if (typeof e === "object") return `an object without embedDocuments/embedQuery (${e.constructor?.name ?? "Object"})`;
  return typeof e;
}
