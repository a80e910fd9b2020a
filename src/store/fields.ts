/**
 * Text extraction for indexing: which strings of a value get embedded (and
 * ranked by keywords).
 *
 * Paths: `"$"` is the whole value as JSON; `"a.b"` nested keys; `"tags[*]"`
 * every element; `"tags[0]"`, `"tags[-1]"` one element. Several texts at one
 * path get fields `path.0`, `path.1`, … so an item keeps one vector per text.
 */
export interface FieldText {
  /** Field id, e.g. `"$"`, `"text"`, `"tags[*].1"`. */
  field: string;
  text: string;
}

function tokenize(path: string): string[] {
  const tokens: string[] = [];
  for (const part of path.split(".")) {
    const m = part.match(/^([^[]*)((?:\[[^\]]*\])*)$/);
    if (!m) {
      tokens.push(part);
      continue;
    }
    if (m[1]) tokens.push(m[1]);
    for (const idx of m[2].match(/\[[^\]]*\]/g) ?? []) tokens.push(idx);
  }
  return tokens;
}

function leafText(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (v === null || v === undefined) return undefined;
  return JSON.stringify(v);
}

function walk(v: unknown, tokens: string[], pos: number, out: string[]): void {
  if (pos === tokens.length) {
    const t = leafText(v);
    if (t !== undefined && t !== "") out.push(t);
    return;
  }
  const token = tokens[pos];
  if (token.startsWith("[") && token.endsWith("]")) {
    if (!Array.isArray(v)) return;
    const inner = token.slice(1, -1);
    if (inner === "*") {
      for (const el of v) walk(el, tokens, pos + 1, out);
      return;
    }
    let i = Number.parseInt(inner, 10);
    if (Number.isNaN(i)) return;
    if (i < 0) i += v.length;
    if (i >= 0 && i < v.length) walk(v[i], tokens, pos + 1, out);
    return;
  }
  if (v !== null && typeof v === "object" && !Array.isArray(v) && token in (v as object)) {
    walk((v as Record<string, unknown>)[token], tokens, pos + 1, out);
  }
}

/** The texts of `value` at each of `paths`, in path order. */
export function extractFieldTexts(value: Record<string, unknown>, paths: readonly string[]): FieldText[] {
  const result: FieldText[] = [];
  for (const path of paths) {
    if (path === "$") {
      result.push({ field: "$", text: JSON.stringify(value) });
      continue;
    }
    const texts: string[] = [];
    walk(value, tokenize(path), 0, texts);
    if (texts.length === 1) result.push({ field: path, text: texts[0] });
    else texts.forEach((text, i) => result.push({ field: `${path}.${i}`, text }));
  }
  return result;
}

/** Every string in a value (used for keyword ranking when no fields are set). */
export function allStrings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) allStrings(v, out);
  else if (value !== null && typeof value === "object") for (const v of Object.values(value)) allStrings(v, out);
  return out;
}
