import { HIDDEN_NAMESPACE_ROOTS } from "../store/hidden-namespaces.js";
import { kindTemplates, type MemoryKind, type MemoryLayout } from "./memory-layout.js";
import { decodeLabel, placeholderName, type NamespaceTemplate } from "./namespace-template.js";

/** What a stored namespace is in a layout. */
export interface NamespaceRole {
  kind: MemoryKind;
  /**
   * `items`: the kind's own items; `bookkeeping`: its declared bookkeeping
   * (feedback) or a kept version / cursor of it; `shared`: belongs to no person.
   */
  role: "items" | "bookkeeping" | "shared";
  /** The placeholder values the namespace fills (decoded), e.g. `{ user_id: "42" }`. */
  values: Record<string, string>;
}

/**
 * The values `namespace` gives `template`'s placeholders when it lies at or
 * under it (whole labels), or undefined when it does not.
 */
export function matchTemplate(template: NamespaceTemplate, namespace: readonly string[]): Record<string, string> | undefined {
  if (namespace.length < template.length) return undefined;
  const values: Record<string, string> = {};
  for (let i = 0; i < template.length; i++) {
    const label = template[i]!;
    const key = placeholderName(label);
    if (key !== undefined) values[key] = decodeLabel(namespace[i]!);
    else if (label !== namespace[i]) return undefined;
  }
  return values;
}

/**
 * Which kind of the layout a namespace belongs to, and as what; undefined
 * for namespaces the layout does not name (shown as plain memories). Kept
 * versions and cursors (`["memory_history", ...ns]`, ...) are the
 * bookkeeping of the kind of `ns`.
 */
export function classifyNamespace(layout: MemoryLayout, namespace: readonly string[]): NamespaceRole | undefined {
  const mirrored = namespace.length > 1 && HIDDEN_NAMESPACE_ROOTS.includes(namespace[0]!);
  const ns = mirrored ? namespace.slice(1) : namespace;
  for (const kind of layout.kinds) {
    const own = matchTemplate(kind.namespace, ns);
    if (own) return { kind, role: mirrored ? "bookkeeping" : "items", values: own };
    for (const t of kind.bookkeeping ?? []) {
      const v = matchTemplate(t, ns);
      if (v) return { kind, role: "bookkeeping", values: v };
    }
  }
  // Shared namespaces are shorter than the person's (`["procedures", agent]`): matched last, exactly.
  for (const kind of layout.kinds) {
    for (const t of kind.shared ?? []) {
      const v = ns.length === t.length ? matchTemplate(t, ns) : undefined;
      if (v) return { kind, role: mirrored ? "bookkeeping" : "shared", values: v };
    }
  }
  return undefined;
}

/** Whether a namespace is bookkeeping (cursors, versions, feedback) under the layout or the package's hidden roots. */
export function isBookkeeping(layout: MemoryLayout, namespace: readonly string[]): boolean {
  if (namespace.length > 0 && HIDDEN_NAMESPACE_ROOTS.includes(namespace[0]!)) return true;
  return classifyNamespace(layout, namespace)?.role === "bookkeeping";
}

/** Whether a namespace is listed among memories: not bookkeeping, and not learned instructions (they have their own view). */
export function listedAsMemories(layout: MemoryLayout, namespace: readonly string[]): boolean {
  return !isBookkeeping(layout, namespace) && classifyNamespace(layout, namespace)?.kind.view !== "procedures";
}

/**
 * The person whose namespace `namespace` is, exactly (one of a kind's person
 * templates, not a namespace below it): the decoded value of its person
 * placeholder, or undefined.
 */
export function personOf(layout: MemoryLayout, namespace: readonly string[]): string | undefined {
  for (const kind of layout.kinds) {
    for (const t of [kind.namespace, ...(kind.bookkeeping ?? [])]) {
      const v = t.length === namespace.length ? matchTemplate(t, namespace) : undefined;
      if (v?.[layout.personKey] !== undefined) return v[layout.personKey];
    }
  }
  return undefined;
}

/** The root labels of every template of the layout (for listings). */
export function layoutRoots(layout: MemoryLayout): string[] {
  return [...new Set(layout.kinds.flatMap((k) => kindTemplates(k).map((t) => t[0]!)))];
}
