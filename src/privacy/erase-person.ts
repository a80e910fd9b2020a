import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError } from "../errors.js";
import { erasePrefixes, type ErasedPrefix } from "../scope/erase-prefixes.js";
import { forgetPerson, type KindErasure } from "../scope/forget-person.js";
import { checkLayout, defaultMemoryLayout, type MemoryLayout } from "../scope/memory-layout.js";
import type { NamespaceValues } from "../scope/memory-namespace.js";
import { currentActor } from "./actor.js";
import { ProtectedStore } from "./protected-store.js";

/** Options for {@link erasePerson}. */
export interface ErasePersonOptions {
  /**
   * More prefixes that hold the person's data, e.g. `[["users", "42"], ["episodes", "42"]]`.
   * Without `userId` or `values`, only these are erased.
   * @default []
   */
  namespaces?: string[][];
  /**
   * The person's user id: every kind of the layout is erased for them
   * (facts, episodes, learned instructions and feedback of every agent, with
   * kept versions and cursors). Shorthand for `values: { [layout.personKey]: userId }`.
   * @default undefined
   */
  userId?: string;
  /**
   * The person's placeholder values, when the layout's templates need more
   * than the user id (e.g. `{ org_id: "7", user_id: "42" }`).
   * @default { [layout.personKey]: userId }
   */
  values?: NamespaceValues;
  /**
   * Where the person's memory lives.
   * @default defaultMemoryLayout()
   */
  layout?: MemoryLayout;
}

/** What {@link erasePerson} removed. */
export interface ErasureReport {
  /** Per prefix: items, kept versions and bookkeeping (cursors) removed. */
  namespaces: { namespace: string[]; items: number; history: number; cursors: number }[];
  total: number;
  /** Whether audit entries about the person were made unlinkable. */
  auditUnlinked: boolean;
  /** Per kind of the layout, when a person was named (`userId` or `values`). */
  kinds?: Record<string, KindErasure>;
  /** What the erasure deliberately kept (agent-wide instructions), when a person was named. */
  kept?: string[];
}

/**
 * Erases a person everywhere in one call. Given `userId` (or `values`), every
 * kind of memory the layout names (by default facts, episodes, and learned
 * instructions with their feedback for every agent), with their kept
 * versions and the extractor's and episode writer's cursors; given
 * `namespaces`, those prefixes too (or only those, without a person). When
 * the store is a {@link ProtectedStore} with an audit log, the person's audit
 * entries are made unlinkable (their salt is destroyed; the chain stays
 * verifiable): the right to be forgotten beats the history. On HNSWStore one
 * compaction at the end purges the deleted texts and vectors from every file
 * (log, snapshot, index, embedding cache).
 *
 * @example
 * ```ts
 * const report = await erasePerson(store, { userId: "42" });
 * report.kinds?.procedures.items; // the person's learned instructions, every agent
 * ```
 */
export async function erasePerson(store: BaseStore, options: ErasePersonOptions): Promise<ErasureReport> {
  if (!options || typeof options !== "object") throw new InvalidArgumentError("erasePerson needs { userId } or { namespaces: [[...], ...] }");
  const named = options.namespaces ?? [];
  if (!Array.isArray(named)) throw new InvalidArgumentError("erasePerson: namespaces must be an array of namespace prefixes");
  for (const ns of named) {
    if (!Array.isArray(ns) || ns.length === 0) throw new InvalidArgumentError(`erasePerson: ${JSON.stringify(ns)} is not a non-empty namespace prefix`);
  }
  if (options.userId !== undefined && (typeof options.userId !== "string" || options.userId === "")) {
    throw new InvalidArgumentError(`erasePerson: userId must be a non-empty string, got ${JSON.stringify(options.userId)}`);
  }
  const person = options.userId !== undefined || options.values !== undefined;
  if (!person && named.length === 0) {
    throw new InvalidArgumentError("erasePerson needs { userId } (every kind of memory of that person) or { namespaces: [[...], ...] }, the prefixes holding the person's data");
  }
  const report: ErasureReport = { namespaces: [], total: 0, auditUnlinked: false };
  let erased: ErasedPrefix[];
  if (person) {
    const layout = options.layout === undefined ? defaultMemoryLayout() : checkLayout(options.layout, "erasePerson layout");
    const values = options.values ?? { [layout.personKey]: options.userId! };
    const r = await forgetPerson(store, { layout, values, extra: named });
    erased = r.prefixes;
    report.kinds = r.kinds;
    report.kept = r.kept;
  } else {
    erased = await erasePrefixes(store, named);
  }
  const audit = store instanceof ProtectedStore ? store.options.audit : undefined;
  for (const { namespace, items, history, cursors } of erased) {
    report.namespaces.push({ namespace, items, history, cursors });
    report.total += items + history + cursors;
    if (audit) {
      const actor = currentActor();
      await audit.forgetSubject(namespace, items + history + cursors, { source: actor?.source ?? "api", identity: actor?.identity });
      report.auditUnlinked = true;
    }
  }
  return report;
}
