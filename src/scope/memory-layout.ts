import { InvalidArgumentError } from "../errors.js";
import { CURSOR_NAMESPACE_ROOT, EPISODE_CURSOR_ROOT, HIDDEN_NAMESPACE_ROOTS } from "../store/hidden-namespaces.js";
import { checkTemplate } from "./check-template.js";
import { placeholderName, templateKeys, type NamespaceTemplate } from "./namespace-template.js";
import { PROCEDURE_FEEDBACK_ROOT, PROCEDURES_ROOT } from "./procedure-namespace.js";

/** How the inspector and the CLI show a kind of memory. */
export type MemoryKindView = "memories" | "episodes" | "procedures";

/**
 * One kind of memory kept about a person, as the layout declares it: where
 * one person's items live, what bookkeeping belongs to them, and how doors
 * show it. Kept versions (`["memory_history", ...namespace]`) and cursors
 * (`[cursorRoot, ...namespace]`) of every namespace below are bookkeeping of
 * the kind without being declared.
 */
export interface MemoryKind {
  /** The kind's name, unique in the layout: `"facts"`, `"episodes"`, `"procedures"`, or your own. */
  name: string;
  /**
   * Where ONE person's items of this kind live, e.g. `["users", "{user_id}"]`.
   * Placeholders are filled from the run (see `resolveNamespace`), or, when
   * forgetting, from the person's values; a placeholder named in
   * `MemoryLayout.enumerated` (`{agent_id}`) that the caller does not give is
   * enumerated from the store (every agent).
   */
  namespace: NamespaceTemplate;
  /**
   * More namespaces of the person that are bookkeeping of this kind (erased
   * with it, never shown as memories), e.g. procedure feedback
   * `["procedure_feedback", "{agent_id}", "{user_id}"]`.
   * @default []
   */
  bookkeeping?: readonly NamespaceTemplate[];
  /**
   * Namespaces of this kind that belong to no person (agent-wide learned
   * instructions): never erased by forgetting a person, and named as kept in
   * every forget report.
   * @default []
   */
  shared?: readonly NamespaceTemplate[];
  /**
   * The root label of the kind's cursors (`[cursors, ...namespace]`), for the
   * report and the docs; erasure removes every cursor root under every
   * namespace whatever this says.
   * @default undefined (the kind keeps no cursors)
   */
  cursors?: string;
  /**
   * How the inspector and the CLI show it.
   * @default "memories"
   */
  view?: MemoryKindView;
  /**
   * Preload this kind for the turn's query, in its own section of the memory
   * block headed `heading`, up to `limit` items (the `text` of each value).
   * Facts and episodes are preloaded by the nodes' own options; this is for
   * kinds you add.
   * @default undefined (not preloaded)
   */
  recall?: { heading: string; limit?: number };
}

/** A memory layout: every kind of memory kept about a person, declared once. */
export interface MemoryLayout {
  readonly kinds: readonly MemoryKind[];
  /**
   * The placeholder that names a person: a forget path that is given only a
   * user id (the inspector, `/v1`, the CLI's `--user`) fills it.
   * @default "user_id"
   */
  readonly personKey: string;
  /**
   * Placeholders that a forget path enumerates from the store when it is not
   * given (every agent that learned instructions for the person).
   * @default ["agent_id"]
   */
  readonly enumerated: readonly string[];
}

/** Options for {@link defineMemoryLayout}. */
export interface MemoryLayoutOptions {
  /** The kinds, each with a unique name and namespaces that do not overlap. */
  kinds: readonly MemoryKind[];
  /** See {@link MemoryLayout.personKey}. @default "user_id" */
  personKey?: string;
  /** See {@link MemoryLayout.enumerated}. @default ["agent_id"] */
  enumerated?: readonly string[];
}

/** Options for {@link defaultMemoryLayout}: today's layout, with the templates an app chose. */
export interface DefaultLayoutOptions {
  /** Where facts live. @default ["users", "{user_id}"] */
  facts?: NamespaceTemplate;
  /** Where episodes live. @default ["episodes", "{user_id}"] */
  episodes?: NamespaceTemplate;
  /** Kinds you add (see {@link MemoryKind}). @default [] */
  extra?: readonly MemoryKind[];
  /** See {@link MemoryLayout.personKey}. @default "user_id" */
  personKey?: string;
}

/** The agent placeholder of learned instructions. */
export const AGENT_PLACEHOLDER = "agent_id";

/** The default facts template. */
export const FACTS_TEMPLATE: NamespaceTemplate = ["users", "{user_id}"];
/** The default episodes template. */
export const EPISODES_TEMPLATE: NamespaceTemplate = ["episodes", "{user_id}"];

const isPlaceholder = (label: string) => placeholderName(label) !== undefined;

/**
 * Whether two templates can name the same namespace or one a prefix of the
 * other (a placeholder matches any label): their kinds would then share items.
 */
function overlap(a: NamespaceTemplate, b: NamespaceTemplate): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (!isPlaceholder(a[i]!) && !isPlaceholder(b[i]!) && a[i] !== b[i]) return false;
  }
  return true;
}

/** Every template of a kind: its namespace, its bookkeeping, its shared namespaces. */
export function kindTemplates(kind: MemoryKind): NamespaceTemplate[] {
  return [kind.namespace, ...(kind.bookkeeping ?? []), ...(kind.shared ?? [])];
}

/**
 * Checks and freezes a layout: unique kind names, valid templates (one
 * placeholder per label), no two kinds whose namespaces overlap (one would
 * erase or list the other's items), no namespace under a bookkeeping root.
 *
 * @throws {InvalidArgumentError} naming the bad kind.
 */
export function defineMemoryLayout(options: MemoryLayoutOptions): MemoryLayout {
  if (!options || typeof options !== "object" || !Array.isArray(options.kinds) || options.kinds.length === 0) {
    throw new InvalidArgumentError("a memory layout needs { kinds: [{ name, namespace }, ...] }");
  }
  const personKey = options.personKey ?? "user_id";
  if (typeof personKey !== "string" || personKey === "") throw new InvalidArgumentError(`personKey must be a placeholder name, got ${JSON.stringify(personKey)}`);
  const enumerated = options.enumerated ?? [AGENT_PLACEHOLDER];
  const names = new Set<string>();
  const kinds: MemoryKind[] = [];
  for (const k of options.kinds) {
    if (!k || typeof k.name !== "string" || !/^[a-z][a-z0-9_-]{0,39}$/.test(k.name)) {
      throw new InvalidArgumentError(`a memory kind needs a name of lower-case letters, digits, '-' or '_', got ${JSON.stringify(k?.name)}`);
    }
    if (names.has(k.name)) throw new InvalidArgumentError(`the memory layout names kind '${k.name}' twice`);
    names.add(k.name);
    if (k.view !== undefined && !["memories", "episodes", "procedures"].includes(k.view)) {
      throw new InvalidArgumentError(`kind '${k.name}': view must be "memories", "episodes" or "procedures", got ${JSON.stringify(k.view)}`);
    }
    if (k.recall !== undefined && (typeof k.recall?.heading !== "string" || k.recall.heading.trim() === "")) {
      throw new InvalidArgumentError(`kind '${k.name}': recall needs a heading (the section title in the memory block)`);
    }
    if (k.recall?.limit !== undefined && (!Number.isInteger(k.recall.limit) || k.recall.limit < 0)) {
      throw new InvalidArgumentError(`kind '${k.name}': recall.limit must be a non-negative integer, got ${String(k.recall.limit)}`);
    }
    for (const t of kindTemplates(k)) {
      try {
        checkTemplate(t);
      } catch (err) {
        throw new InvalidArgumentError(`kind '${k.name}': ${(err as Error).message}`);
      }
      if (isPlaceholder(t[0]!)) throw new InvalidArgumentError(`kind '${k.name}': template ${JSON.stringify(t)} must start with a fixed label`);
      if (HIDDEN_NAMESPACE_ROOTS.includes(t[0]!)) throw new InvalidArgumentError(`kind '${k.name}': '${t[0]}' is a bookkeeping root of the package`);
    }
    if (!templateKeys(k.namespace).includes(personKey)) {
      throw new InvalidArgumentError(`kind '${k.name}': namespace ${JSON.stringify(k.namespace)} has no {${personKey}}, so no person's items could be found in it`);
    }
    kinds.push(Object.freeze({ ...k }));
  }
  for (let i = 0; i < kinds.length; i++) {
    for (let j = i + 1; j < kinds.length; j++) {
      for (const a of [kinds[i]!.namespace, ...(kinds[i]!.bookkeeping ?? [])]) {
        for (const b of [kinds[j]!.namespace, ...(kinds[j]!.bookkeeping ?? [])]) {
          if (overlap(a, b)) {
            throw new InvalidArgumentError(
              `kinds '${kinds[i]!.name}' and '${kinds[j]!.name}' overlap (${JSON.stringify(a)} and ${JSON.stringify(b)}): one would list and erase the other's items; give each its own first label`,
            );
          }
        }
      }
    }
  }
  return Object.freeze({ kinds: Object.freeze(kinds), personKey, enumerated: Object.freeze([...enumerated]) });
}

/** The procedures kind: where the procedures module writes (fixed roots). */
function proceduresKind(personKey: string): MemoryKind {
  const p = `{${personKey}}`;
  const a = `{${AGENT_PLACEHOLDER}}`;
  return {
    name: "procedures",
    namespace: [PROCEDURES_ROOT, a, p],
    bookkeeping: [[PROCEDURE_FEEDBACK_ROOT, a, p]],
    shared: [[PROCEDURES_ROOT, a], [PROCEDURE_FEEDBACK_ROOT, a]],
    view: "procedures",
  };
}

/**
 * Today's layout: facts in `["users", "{user_id}"]` (with extraction cursors
 * and kept versions), episodes in `["episodes", "{user_id}"]` (with episode
 * cursors), and learned instructions in `["procedures", "{agent_id}",
 * "{user_id}"]` for every agent (with their versions and the feedback in
 * `["procedure_feedback", "{agent_id}", "{user_id}"]`); agent-wide
 * instructions are shared, kept when a person is forgotten.
 *
 * @example
 * ```ts
 * const layout = defaultMemoryLayout({ extra: [{ name: "notes", namespace: ["notes", "{user_id}"], recall: { heading: "Notes:" } }] });
 * ```
 */
export function defaultMemoryLayout(options: DefaultLayoutOptions = {}): MemoryLayout {
  const personKey = options.personKey ?? "user_id";
  const swap = (t: NamespaceTemplate) => (personKey === "user_id" ? t : t.map((l) => (l === "{user_id}" ? `{${personKey}}` : l)));
  return defineMemoryLayout({
    personKey,
    kinds: [
      { name: "facts", namespace: options.facts ?? swap(FACTS_TEMPLATE), cursors: CURSOR_NAMESPACE_ROOT, view: "memories" },
      { name: "episodes", namespace: options.episodes ?? swap(EPISODES_TEMPLATE), cursors: EPISODE_CURSOR_ROOT, view: "episodes" },
      proceduresKind(personKey),
      ...(options.extra ?? []),
    ],
  });
}

/** The kind named `name`, or undefined. */
export function layoutKind(layout: MemoryLayout, name: string): MemoryKind | undefined {
  return layout.kinds.find((k) => k.name === name);
}

/** Checks that `layout` was made by {@link defineMemoryLayout} (or has its shape). */
export function checkLayout(layout: unknown, what = "layout"): MemoryLayout {
  const l = layout as MemoryLayout | undefined;
  if (!l || typeof l !== "object" || !Array.isArray(l.kinds) || typeof l.personKey !== "string" || !Array.isArray(l.enumerated)) {
    throw new InvalidArgumentError(`${what} must be a memory layout from defineMemoryLayout or defaultMemoryLayout`);
  }
  return l;
}
