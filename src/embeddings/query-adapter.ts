import { InvalidArgumentError } from "../errors.js";
import { embedderIdentity } from "./identity.js";
import { USE_LITE_EPISODES_QUERY_ADAPTER } from "./use-lite-episodes-query-adapter.weights.js";
import { USE_LITE_FACTS_QUERY_ADAPTER } from "./use-lite-facts-query-adapter.weights.js";

/**
 * A low-rank linear map applied to query vectors only:
 * q' = normalise(q + U·(Vᵀq) + b), U and V of shape dims × rank, b an
 * optional bias of length dims (none: zero). Stored vectors
 * and indexes stay as the embedder made them, so turning it on or off needs
 * no reindex. The package ships two for the bundled USE-lite, one per kind of
 * memory a search looks in ({@link QueryAdapterKind}), both trained on
 * questions and the facts that answer them (bench/train-query-adapter.ts);
 * stores apply them to their search queries when their embedder is USE-lite
 * (see `index.queryAdapter` and a search's `queryAdapter`).
 */
export class QueryAdapter {
  constructor(
    readonly dims: number,
    readonly rank: number,
    /** dims × rank, row-major. */
    readonly u: ArrayLike<number>,
    /** dims × rank, row-major. */
    readonly v: ArrayLike<number>,
    /** Length dims, added before the normalisation; undefined: no bias. */
    readonly b?: ArrayLike<number>,
  ) {}

  /** The adapted, L2-normalised query vector (a new array; `q` is not changed). */
  apply(q: ArrayLike<number>): number[] {
    const { dims, rank, u, v, b } = this;
    const z = new Float64Array(rank);
    for (let i = 0; i < dims; i++) {
      const qi = q[i]!;
      if (qi === 0) continue;
      const row = i * rank;
      for (let k = 0; k < rank; k++) z[k]! += v[row + k]! * qi;
    }
    const out = new Array<number>(dims);
    let norm = 0;
    for (let i = 0; i < dims; i++) {
      let a = q[i]!;
      const row = i * rank;
      for (let k = 0; k < rank; k++) a += u[row + k]! * z[k]!;
      if (b) a += b[i]!;
      out[i] = a;
      norm += a * a;
    }
    const s = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let i = 0; i < dims; i++) out[i]! *= s;
    return out;
  }
}

/**
 * Which of the shipped adapters a search's query goes through, by the kind
 * of memory it searches: `"facts"` (what an extractor writes, searched by
 * `store.search`, the preload and the memory tools; trained on more people,
 * with less weight decay) or `"episodes"` (conversation turns, searched by
 * `searchEpisodes`, the preload's past-conversation section and the
 * search-conversations tool).
 */
export type QueryAdapterKind = "facts" | "episodes";

/** Every {@link QueryAdapterKind}. */
export const QUERY_ADAPTER_KINDS: readonly QueryAdapterKind[] = ["facts", "episodes"];

/**
 * A search's own `queryAdapter`: `false` (the query as the embedder made it),
 * `true` (the store's default, the facts adapter) or a {@link QueryAdapterKind}.
 */
export type QueryAdapterChoice = boolean | QueryAdapterKind;

/** Whether `value` is a {@link QueryAdapterChoice}. */
const isQueryAdapterChoice = (value: unknown): value is QueryAdapterChoice =>
  typeof value === "boolean" || QUERY_ADAPTER_KINDS.includes(value as QueryAdapterKind);

/** What a {@link QueryAdapterChoice} may be, for error messages. */
const QUERY_ADAPTER_CHOICES = `a boolean, ${QUERY_ADAPTER_KINDS.map((k) => JSON.stringify(k)).join(" or ")}`;

/**
 * Checks a search's `queryAdapter` (undefined: unset, allowed).
 * @throws {InvalidArgumentError} naming the allowed values, prefixed by `where` when given.
 */
export function checkQueryAdapterChoice(value: unknown, where?: string): void {
  if (value !== undefined && !isQueryAdapterChoice(value)) {
    throw new InvalidArgumentError(`${where ? `${where}: ` : ""}queryAdapter must be ${QUERY_ADAPTER_CHOICES}, got ${JSON.stringify(value)}`);
  }
}

/** A weights module's export: U and V (and the optional bias b) as base64 float32, little-endian. */
interface QueryAdapterWeights {
  model: string;
  dims: number;
  rank: number;
  u: string;
  v: string;
  b?: string;
}

/** The weights of each kind, each decoded on first use. */
const WEIGHTS: Record<QueryAdapterKind, QueryAdapterWeights> = {
  facts: USE_LITE_FACTS_QUERY_ADAPTER,
  episodes: USE_LITE_EPISODES_QUERY_ADAPTER,
};

/** The model id the shipped adapters were trained for (USE-lite's `model`). */
export const QUERY_ADAPTER_MODEL = USE_LITE_FACTS_QUERY_ADAPTER.model;

const bundled = new Map<QueryAdapterKind, QueryAdapter>();
function decode(b64: string): Float32Array {
  const buf = Buffer.from(b64, "base64");
  return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
}

/** The shipped USE-lite adapter of `kind`, decoded on first use. */
export function bundledQueryAdapter(kind: QueryAdapterKind = "facts"): QueryAdapter {
  let a = bundled.get(kind);
  if (!a) {
    const w = WEIGHTS[kind];
    bundled.set(kind, (a = new QueryAdapter(w.dims, w.rank, decode(w.u), decode(w.v), w.b === undefined ? undefined : decode(w.b))));
  }
  return a;
}

const usesBundledModel = new WeakMap<object, boolean>();

/**
 * The adapter of `kind` for a store's embedder: the shipped one when the
 * embedder's identity names the bundled USE-lite model (also through
 * wrappers such as `CachedEmbeddings`, which report the embedder they wrap),
 * else undefined.
 */
export function queryAdapterFor(embeddings: object, kind: QueryAdapterKind = "facts"): QueryAdapter | undefined {
  let uses = usesBundledModel.get(embeddings);
  if (uses === undefined) usesBundledModel.set(embeddings, (uses = embedderIdentity(embeddings).includes(QUERY_ADAPTER_MODEL)));
  return uses ? bundledQueryAdapter(kind) : undefined;
}

/** `vector` through the embedder's adapter of `kind` when it has one and the vector has the adapter's length; else `vector` itself. */
export function adaptQueryVector(embeddings: object, vector: number[], kind: QueryAdapterKind = "facts"): number[] {
  const a = queryAdapterFor(embeddings, kind);
  return a && vector.length === a.dims ? a.apply(vector) : vector;
}
