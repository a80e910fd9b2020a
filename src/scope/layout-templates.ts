import { InvalidOptionError } from "../errors.js";
import { checkLayout, EPISODES_TEMPLATE, layoutKind, type MemoryLayout } from "./memory-layout.js";
import type { NamespaceTemplate } from "./namespace-template.js";

/** The kinds whose templates a door can take from the layout. */
export type LayoutTemplateKind = "facts" | "episodes";

const same = (a: NamespaceTemplate, b: NamespaceTemplate) => a.length === b.length && a.every((l, i) => l === b[i]);

/**
 * THE rule for a door that takes both a template option and a layout: the
 * template of `kind` the door reads and writes.
 *
 * - no `layout`: `given` (else `fallback`), as before layouts;
 * - `layout` without `given`: the layout's `kind` namespace;
 * - both, the same template: that template;
 * - both, different: refused, so a door never writes where forgetting the
 *   person does not look.
 *
 * @param option the option's path as the user wrote it (`namespace`, `episodes.namespace`), for the error.
 * @throws {InvalidOptionError} when `given` differs from the layout's, or the layout has no such kind.
 */
export function templateFromLayout(
  kind: LayoutTemplateKind,
  given: NamespaceTemplate | undefined,
  layout: MemoryLayout | undefined,
  option: string,
  fallback?: NamespaceTemplate,
): NamespaceTemplate | undefined {
  if (layout === undefined) return given ?? fallback;
  const declared = layoutKind(checkLayout(layout), kind)?.namespace;
  if (declared === undefined) {
    throw new InvalidOptionError("layout", layout.kinds.map((k) => k.name), `a layout with a "${kind}" kind, since ${option} is taken from it (add a "${kind}" kind to the layout)`);
  }
  if (given !== undefined && !(Array.isArray(given) && same(given, declared))) {
    throw new InvalidOptionError(
      option,
      given,
      `the layout's ${kind} namespace ${JSON.stringify(declared)} (${option} differs from layout ${kind}: pass one; drop ${option} to use the layout's)`,
    );
  }
  return declared;
}

/** The options {@link templatesFromLayout} reads: a door's facts template, episodes and layout. */
export interface LayoutTemplateOptions {
  namespace?: NamespaceTemplate;
  episodes?: { namespace?: NamespaceTemplate };
  layout?: MemoryLayout;
}

/**
 * The facts and episodes templates of a door (callModel, withMemory,
 * memoryMiddleware) by {@link templateFromLayout}'s rule; `episodes` is
 * undefined when episodes are off. A door without `namespace` and without
 * `layout` gets `facts: undefined` (its own check names the missing option).
 */
export function templatesFromLayout(options: LayoutTemplateOptions): { facts: NamespaceTemplate | undefined; episodes: NamespaceTemplate | undefined } {
  const facts = templateFromLayout("facts", options.namespace, options.layout, "namespace");
  const episodes = options.episodes ? templateFromLayout("episodes", options.episodes.namespace, options.layout, "episodes.namespace", EPISODES_TEMPLATE) : undefined;
  return { facts, episodes };
}

/**
 * `options` with its facts `namespace` and `episodes.namespace` filled by
 * {@link templatesFromLayout}, so everything built from them reads and
 * writes where the layout says.
 */
export function withLayoutTemplates<O extends LayoutTemplateOptions>(options: O): O & { namespace: NamespaceTemplate } {
  const { facts, episodes } = templatesFromLayout(options);
  return {
    ...options,
    namespace: facts as NamespaceTemplate,
    // A malformed `episodes` is left as given, for the door's own check to name.
    ...(options.episodes && typeof options.episodes === "object" ? { episodes: { ...options.episodes, namespace: episodes } } : {}),
  };
}
