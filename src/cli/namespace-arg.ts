import { CliError } from "../errors.js";
import { validateNamespace } from "../store/namespace.js";

/**
 * Parses a namespace given on the command line. The form is dotted,
 * `users.42` → `["users", "42"]` (labels cannot contain `.`, so this is never
 * ambiguous); a JSON array such as `'["users","42"]'` is accepted too, for
 * labels with spaces or shell-special characters. An empty string is the
 * root (every namespace), allowed only where a prefix is.
 */
export function parseNamespace(arg: string | undefined, what = "namespace", options: { allowEmpty?: boolean } = {}): string[] {
  if (arg === undefined || arg === "") {
    if (options.allowEmpty) return [];
    throw new CliError(`${what} is required (dotted, e.g. users.42)`);
  }
  let ns: unknown;
  if (arg.trimStart().startsWith("[")) {
    try {
      ns = JSON.parse(arg);
    } catch {
      throw new CliError(`${what} ${JSON.stringify(arg)} is not a valid JSON array`);
    }
  } else {
    ns = arg.split(".");
  }
  try {
    validateNamespace(ns, { what });
  } catch (err) {
    throw new CliError(`${(err as Error).message} (write namespaces dotted, e.g. users.42, or as a JSON array)`);
  }
  if ((ns as string[]).length === 0 && !options.allowEmpty) throw new CliError(`${what} cannot be empty`);
  return ns as string[];
}

/** The dotted form of a namespace, as `ls` prints it. */
export function formatNamespace(ns: readonly string[]): string {
  return ns.join(".");
}
