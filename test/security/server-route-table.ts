/**
 * The route table of a Fastify app, read from Fastify itself
 * (`printRoutes`), so that a route added tomorrow is walked too.
 */
import type { FastifyInstance } from "fastify";

export interface TableRoute {
  method: string;
  url: string;
}

/** Parses `app.printRoutes({ commonPrefix: false })`: a tree whose node paths concatenate. */
export function routeTable(app: FastifyInstance): TableRoute[] {
  const out: TableRoute[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split("\n")) {
    const m = /^((?:[│ ] {3})*)[├└]── (.+?)(?: \(([^)]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    stack.length = depth;
    const path = (stack[depth - 1] ?? "") + m[2];
    stack[depth] = path;
    for (const method of m[3]?.split(",").map((s) => s.trim()) ?? []) out.push({ method, url: path });
  }
  return out;
}

/** Spellings of `path` that a router might route to the same handler while a string check sees another path. */
export function pathVariants(path: string): { kind: string; path: string }[] {
  const segs = path.split("/").filter(Boolean);
  const enc = (s: string) => s.replace(/[a-z]/i, (c) => `%${c.charCodeAt(0).toString(16)}`);
  const encAll = (s: string) => [...s].map((c) => (/[a-z]/i.test(c) ? `%${c.charCodeAt(0).toString(16).toUpperCase()}` : c)).join("");
  const join = (xs: string[]) => "/" + xs.join("/");
  const v: { kind: string; path: string }[] = [{ kind: "plain path", path }];
  if (segs.length === 0) {
    v.push({ kind: "double slash", path: "//" }, { kind: "dot segment", path: "/./" }, { kind: "dot segment", path: "/x/../" }, { kind: "encoded path", path: "/%2e/" });
    return v;
  }
  v.push(
    { kind: "encoded path", path: join([enc(segs[0]), ...segs.slice(1)]) },
    { kind: "encoded path", path: join(segs.map(enc)) },
    { kind: "encoded path", path: join(segs.map(encAll)) },
    ...(segs.length > 1 ? [{ kind: "encoded path", path: join(segs).replace(/\/(?=[^/]*$)/, "%2F") }] : []),
    { kind: "encoded path", path: join(segs) + "%00" },
    { kind: "double slash", path: "/" + join(segs) },
    { kind: "double slash", path: join(segs).replace(/\/(?=[^/]*$)/, "//") },
    { kind: "double slash", path: join(segs) + "//" },
    { kind: "dot segment", path: "/x/.." + join(segs) },
    { kind: "dot segment", path: "/." + join(segs) },
    { kind: "dot segment", path: join([segs[0], "..", ...segs]) },
    { kind: "dot segment", path: "/%2e%2e" + join(segs) },
    { kind: "dot segment", path: join([segs[0], "%2e", ...segs.slice(1)]) },
    { kind: "case change", path: join(segs).toUpperCase() },
    { kind: "case change", path: join([segs[0][0].toUpperCase() + segs[0].slice(1), ...segs.slice(1)]) },
    { kind: "trailing slash", path: join(segs) + "/" },
    { kind: "path parameter", path: join(segs) + ";x=1" },
  );
  return v;
}
