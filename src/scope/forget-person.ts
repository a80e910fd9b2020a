import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { InvalidArgumentError, MissingConfigError } from "../errors.js";
import { erasePrefixes, type ErasedPrefix } from "./erase-prefixes.js";
import { kindTemplates, type MemoryLayout } from "./memory-layout.js";
import { matchTemplate } from "./layout-match.js";
import type { NamespaceValues } from "./memory-namespace.js";
import { encodeLabel, placeholderName, templateKeys, type NamespaceTemplate } from "./namespace-template.js";
import { waitForPendingWrites } from "./pending-writes.js";
import { underlyingStore } from "./resolve-store.js";

/** What forgetting a person erased of one kind. */
export interface KindErasure {
  /** The person's namespaces of this kind that were erased (items and declared bookkeeping). */
  namespaces: string[][];
  /** The kind's items. */
  items: number;
  /** Kept versions of them (`["memory_history", ...]`). */
  versions: number;
  /** Extraction and episode cursors. */
  cursors: number;
  /** Items of the kind's declared bookkeeping namespaces (procedure feedback). */
  bookkeeping: number;
}

/** What {@link forgetPerson} erased, per kind, and what it deliberately kept. */
export interface PersonErasure {
  /** Per kind of the layout (every kind is named, with zeros when the person had none). */
  kinds: Record<string, KindErasure>;
  /** What the erasure deliberately keeps, in words (agent-wide instructions, ...). */
  kept: string[];
  /** Everything removed: items, versions, cursors and bookkeeping of every kind. */
  total: number;
  /** Per erased prefix, as `erasePrefixes` reported it (for audit trails). */
  prefixes: ErasedPrefix[];
}

/** Options of {@link forgetPerson}. */
export interface ForgetPersonOptions {
  /** Where the person's memory lives. */
  layout: MemoryLayout;
  /** The person's placeholder values, e.g. `{ user_id: "42" }` (raw, not encoded). */
  values: NamespaceValues;
  /** More prefixes to erase with the person (reported under the kind they belong to, else `other`). @default [] */
  extra?: readonly string[][];
}

const PAGE = 1000;

/**
 * The namespaces a template names for `values`: one, or (with an enumerated
 * placeholder such as `{agent_id}` left open) every matching namespace the
 * store holds. Throws before anything is deleted when another placeholder
 * has no value.
 */
async function namespacesOf(store: BaseStore, layout: MemoryLayout, kind: string, template: NamespaceTemplate, values: NamespaceValues): Promise<string[][]> {
  const fixed: (string | undefined)[] = template.map((label) => {
    const key = placeholderName(label);
    if (key === undefined) {
      if (templateKeys([label]).length > 0) throw new InvalidArgumentError(`kind '${kind}': label '${label}' mixes text and a placeholder, which forgetting cannot enumerate`);
      return label;
    }
    const v = values[key];
    if (v !== undefined && v !== null && v !== "") return encodeLabel(String(v));
    if (layout.enumerated.includes(key)) return undefined;
    throw new MissingConfigError(`forgetting kind '${kind}' (${JSON.stringify(template)}) needs ${key}; nothing was deleted`);
  });
  const open = fixed.indexOf(undefined);
  if (open === -1) return [fixed as string[]];
  const pattern = fixed.map((l, i) => l ?? template[i]!);
  const out = new Map<string, string[]>();
  for (let offset = 0; ; offset += PAGE) {
    const page = await store.listNamespaces({ prefix: fixed.slice(0, open) as string[], maxDepth: template.length, limit: PAGE, offset });
    for (const ns of page) {
      const head = ns.slice(0, template.length);
      if (head.length === template.length && matchTemplate(pattern, head)) out.set(JSON.stringify(head), head);
    }
    if (page.length < PAGE) break;
  }
  return [...out.values()];
}

/** One namespace a person's erasure covers. */
export interface PersonNamespace {
  kind: string;
  /** A declared bookkeeping namespace of the kind (feedback), not its items. */
  bookkeeping: boolean;
  namespace: string[];
}

/**
 * Every namespace of the person under the layout (every agent where a kind
 * is per agent), without deleting anything, and what an erasure keeps.
 *
 * @throws {MissingConfigError} when a kind needs a value that is not given.
 */
export async function personNamespaces(store: BaseStore, options: ForgetPersonOptions): Promise<{ targets: PersonNamespace[]; kept: string[] }> {
  const { layout, values } = options;
  if (!values || typeof values !== "object") throw new InvalidArgumentError("forgetting a person needs their values, e.g. { user_id: \"42\" }");
  const p = values[layout.personKey];
  if (p === undefined || p === null || p === "") throw new MissingConfigError(`forgetting a person needs ${layout.personKey}; nothing was deleted`);
  const real = underlyingStore(store);
  const targets: PersonNamespace[] = [];
  const kept: string[] = [];
  for (const kind of layout.kinds) {
    const templates = [kind.namespace, ...(kind.bookkeeping ?? [])];
    for (const [i, t] of templates.entries()) {
      for (const ns of await namespacesOf(real, layout, kind.name, t, values)) targets.push({ kind: kind.name, bookkeeping: i > 0, namespace: ns });
    }
    for (const t of kind.shared ?? []) kept.push(`${kind.name}: ${JSON.stringify(t)} (not any one person's)`);
  }
  const known = new Set(targets.map((t) => JSON.stringify(t.namespace)));
  for (const ns of options.extra ?? []) {
    if (known.has(JSON.stringify(ns))) continue;
    known.add(JSON.stringify(ns));
    const kind = layout.kinds.find((k) => kindTemplates(k).some((t) => matchTemplate(t, ns)))?.name ?? "other";
    targets.push({ kind, bookkeeping: false, namespace: ns });
  }
  return { targets, kept };
}

/**
 * The one erasure behind every forget path: every kind the layout names, for
 * the person's values (every agent where a kind is per agent), with kept
 * versions, cursors and declared bookkeeping, on the store under LangGraph's
 * batching wrapper and a `ProtectedStore`; one compaction at the end purges
 * an `HNSWStore`'s files. Everything is resolved before anything is deleted,
 * and background extractions on those namespaces are run to completion first.
 *
 * @throws {MissingConfigError} when a kind needs a value that is not given (nothing is deleted).
 */
export async function forgetPerson(store: BaseStore, options: ForgetPersonOptions): Promise<PersonErasure> {
  const { layout } = options;
  const real = underlyingStore(store);
  const { targets, kept } = await personNamespaces(real, options);
  const prefixes = targets.map((t) => t.namespace);
  const kinds: Record<string, KindErasure> = {};
  for (const kind of layout.kinds) kinds[kind.name] ??= { namespaces: [], items: 0, versions: 0, cursors: 0, bookkeeping: 0 };
  for (const t of targets) kinds[t.kind] ??= { namespaces: [], items: 0, versions: 0, cursors: 0, bookkeeping: 0 };
  for (const ns of prefixes) await waitForPendingWrites(real, ns);
  const erased = await erasePrefixes(store, prefixes);
  let total = 0;
  erased.forEach((r, i) => {
    const { kind, bookkeeping } = targets[i]!;
    const k = kinds[kind]!;
    k.namespaces.push(r.namespace);
    if (bookkeeping) k.bookkeeping += r.items;
    else k.items += r.items;
    k.versions += r.history;
    k.cursors += r.cursors;
    total += r.items + r.history + r.cursors;
  });
  return { kinds, kept, total, prefixes: erased };
}
