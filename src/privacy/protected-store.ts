import { supportsConditionalPuts } from "../store/conditional-put.js";
import {
  BaseStore,
  type GetOperation,
  type Item,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchOperation,
} from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError, RedactionError } from "../errors.js";
import { OPTION_KEYS } from "../option-keys.js";
import { checkBoolean, checkFunction, checkHasMethods, checkNumber, checkOptions } from "../option-checks.js";
import { MAX_TTL_MINUTES } from "../store/ttl.js";
import { bookkeepingMirrors } from "../store/hidden-namespaces.js";
import { ERASE_TARGET } from "../scope/erase-prefixes.js";
import { currentActor } from "./actor.js";
import { INTERNAL_ROOTS, type AuditLog } from "./audit-log.js";
import { versionPut } from "./history.js";
import { applyRedactor, redactValue, type Redactor, type TextRedactor } from "./redact.js";
import { replaceSpans } from "./normalize.js";
import type { DetectorName } from "./detectors.js";

const KEY_DETECTORS: readonly DetectorName[] = ["secret", "email", "card", "iban"];

/** Options for {@link ProtectedStore}. */
export interface ProtectedStoreOptions {
  /**
   * Applied to every string of every value written and to every search query,
   * before the inner store (and so its embedder) sees them. See `createRedactor`.
   * @default undefined (no redaction)
   */
  redactor?: Redactor;
  /**
   * Where to record writes and deletes (hashed keys, never text).
   * @default undefined (no audit trail)
   */
  audit?: AuditLog;
  /**
   * Keep the previous version of every memory that is updated or deleted, in
   * the same batch as the change (see `listHistory`, `restoreVersion`).
   * @default false
   */
  history?: boolean;
  /**
   * Time to live of kept versions, in minutes, on stores that honour `ttl`.
   * @default undefined (kept until the person is erased)
   */
  historyTtl?: number;
}

type StoreExtras = BaseStore & {
  count?(prefix?: string[]): Promise<number>;
  deleteNamespace?(prefix: string[]): Promise<number>;
  close?(): Promise<void>;
  open?(): Promise<void>;
};

const isPut = (op: Operation): op is PutOperation => "value" in op;
const isSearch = (op: Operation): op is SearchOperation => "namespacePrefix" in op;
const isInternal = (namespace: readonly string[]) => INTERNAL_ROOTS.includes(namespace[0]);

/**
 * A `BaseStore` that wraps any other (HNSWStore, the PostgreSQL store,
 * RemoteStore, InMemoryStore) and adds, for every write that goes through it:
 * redaction before storage and before the embedder, a version history of
 * updates and deletes, and a tamper-evident audit trail.
 *
 * Writes are attributed to the actor set with `runAsActor` (the server and CLI
 * set it), else to the value's own `source` field (`tool`, `extractor`), else `api`.
 *
 * @example
 * ```ts
 * const store = new ProtectedStore(new HNSWStore({ path, index }), {
 *   redactor: createRedactor(),
 *   history: true,
 *   audit: new AuditLog({ path: join(path, "audit") }),
 * });
 * ```
 */
export class ProtectedStore extends BaseStore {
  readonly inner: StoreExtras;
  readonly options: ProtectedStoreOptions;

  constructor(inner: BaseStore, options: ProtectedStoreOptions = {}) {
    super();
    if (!inner || typeof (inner as { batch?: unknown }).batch !== "function") {
      throw new InvalidArgumentError("ProtectedStore needs a store to wrap (a BaseStore)");
    }
    checkOptions(options, "ProtectedStore options", OPTION_KEYS.protectedStore);
    checkFunction(options.redactor, "redactor");
    checkBoolean(options.history, "history");
    checkHasMethods(options.audit, "audit", ["append", "close"]);
    checkNumber(options.historyTtl, "historyTtl", { min: 0, minInclusive: false, max: MAX_TTL_MINUTES });
    this.inner = inner as StoreExtras;
    this.options = options;
  }

  /** Conditional puts (`ifValue`) pass through to the inner store, so they are honoured when it honours them. */
  get conditionalPuts(): boolean {
    return supportsConditionalPuts(this.inner as unknown as BaseStore);
  }

  override async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const actor = currentActor();
    const { redactor, history, audit } = this.options;
    // 1. Redact first: a redactor that throws fails the batch before anything is written or embedded.
    const rewritten: Operation[] = [];
    for (const op of operations) {
      if (redactor && isPut(op) && op.value !== null) {
        await refusePiiKey(redactor, op.key);
        rewritten.push({ ...op, value: await redactValue(op.value, redactor) });
      }
      else if (redactor && isSearch(op) && typeof op.query === "string") rewritten.push({ ...op, query: await applyRedactor(redactor, op.query) });
      else rewritten.push(op);
    }
    // 2. Read what the writes replace (for history and for the audit's update/put distinction).
    const writes = rewritten.map((op, i) => ({ op, i })).filter((w): w is { op: PutOperation; i: number } => isPut(w.op) && !isInternal(w.op.namespace));
    let previous: (Item | null)[] = [];
    if (writes.length > 0 && (history || audit)) {
      const gets: GetOperation[] = writes.map(({ op }) => ({ namespace: op.namespace, key: op.key }));
      previous = (await this.inner.batch(gets)) as (Item | null)[];
    }
    const sourceOf = (op: PutOperation, prev: Item | null) =>
      actor?.source ?? stringField(op.value, "source") ?? stringField(prev?.value, "source") ?? "api";
    // 3. One batch to the inner store: each version put goes just before the change it records.
    const forwarded: Operation[] = [];
    const resultIndex: number[] = [];
    let w = 0;
    for (let i = 0; i < rewritten.length; i++) {
      const op = rewritten[i];
      if (history && w < writes.length && writes[w].i === i) {
        const prev = previous[w];
        if (prev) {
          forwarded.push(
            versionPut(prev, {
              op: (op as PutOperation).value === null ? "delete" : "update",
              source: sourceOf(op as PutOperation, prev),
              identity: actor?.identity,
              ttlMinutes: this.options.historyTtl,
            }),
          );
        }
      }
      if (w < writes.length && writes[w].i === i) w++;
      resultIndex.push(forwarded.length);
      forwarded.push(op);
    }
    const results = (await this.inner.batch(forwarded)) as unknown[];
    // 4. Audit what was applied.
    if (audit) {
      for (let k = 0; k < writes.length; k++) {
        const { op } = writes[k];
        const prev = previous[k] ?? null;
        const kind = op.value === null ? "delete" : prev ? "update" : "put";
        if (kind === "delete" && !prev) continue;
        await audit.append({ op: kind, namespace: op.namespace, key: op.key, source: sourceOf(op, prev), identity: actor?.identity });
      }
    }
    return resultIndex.map((i) => results[i]) as OperationResults<Op>;
  }

  /** Items under `prefix`, when the inner store can count. */
  async count(prefix: string[] = []): Promise<number> {
    if (typeof this.inner.count !== "function") throw new InvalidArgumentError("the wrapped store has no count()");
    return this.inner.count(prefix);
  }

  /** The store that erasure (`erasePerson`, `forgetUser`) works on: deletes through this one would be versioned. */
  get [ERASE_TARGET](): BaseStore {
    return this.inner;
  }

  /**
   * Deletes every item under `prefix` and records it in the audit trail,
   * with the prefix's bookkeeping: the kept versions of those items and
   * their cursors (a forgotten namespace keeps no history). Use
   * `erasePerson` to also make the person's audit entries unlinkable.
   */
  async deleteNamespace(prefix: string[]): Promise<number> {
    for (const mirror of bookkeepingMirrors(prefix)) await deleteUnder(this.inner, mirror);
    const removed = await deleteUnder(this.inner, prefix);
    if (this.options.audit && removed > 0) {
      const actor = currentActor();
      await this.options.audit.append({ op: "delete_namespace", namespace: prefix, source: actor?.source ?? "api", identity: actor?.identity, count: removed });
    }
    return removed;
  }

  override async start(): Promise<void> {
    await this.inner.start?.();
  }

  override async stop(): Promise<void> {
    await this.inner.stop?.();
  }

  /** Closes the audit log and the inner store. */
  async close(): Promise<void> {
    await this.options.audit?.close();
    await this.inner.close?.();
  }
}

/** Deletes every item under `prefix` from any store: `deleteNamespace` where it exists, else search and delete. */
export async function deleteUnder(store: BaseStore, prefix: string[]): Promise<number> {
  const s = store as StoreExtras;
  if (typeof s.deleteNamespace === "function") return s.deleteNamespace(prefix);
  let removed = 0;
  for (;;) {
    const page = await store.search(prefix, { limit: 100 });
    if (page.length === 0) return removed;
    await store.batch(page.map((it) => ({ namespace: it.namespace, key: it.key, value: null })));
    removed += page.length;
  }
}

/**
 * An item key is an identifier: redacting it would merge different items
 * into one, so a put whose key holds something the redactor removes is
 * refused (the message does not repeat the key).
 */
async function refusePiiKey(redactor: Redactor, key: string): Promise<void> {
  const spans = (redactor as Partial<TextRedactor>).spans;
  // With the built-in detectors, a key is refused for a phone number only when it is one (ids and dates look alike).
  const redacted =
    typeof spans === "function"
      ? replaceSpans(key, [...spans(key, KEY_DETECTORS), ...spans(key, ["phone"]).filter((s) => s.start === 0 && s.end === key.length)])
      : await applyRedactor(redactor, key);
  if (redacted !== key) {
    throw new RedactionError(`the item key holds text the redactor removes (it would read ${JSON.stringify(redacted)}); use an opaque id as the key. Nothing was written`);
  }
}

function stringField(value: Record<string, unknown> | null | undefined, field: string): string | undefined {
  const v = value?.[field];
  return typeof v === "string" ? v : undefined;
}
