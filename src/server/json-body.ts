import type { FastifyInstance } from "fastify";
import { JsonTooDeepError } from "../errors.js";

/**
 * How deeply `text` (JSON) nests arrays and objects, counting up to
 * `stopAt` + 1 only, in one pass without recursion.
 */
export function jsonDepth(text: string, stopAt = Infinity): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max && (max = depth) > stopAt) return max;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return max;
}

/**
 * Replaces Fastify's JSON body parser with one that refuses bodies nesting
 * deeper than `maxDepth` (before parsing them, so nothing later recurses into
 * them), then parses as Fastify does (prototype poisoning refused).
 */
export function installJsonDepthLimit(app: FastifyInstance, maxDepth: number): void {
  const parse = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = body as string;
    if (jsonDepth(text, maxDepth) > maxDepth) {
      done(new JsonTooDeepError(`the JSON body nests arrays or objects more than ${maxDepth} levels deep (the server's maxJsonDepth)`), undefined);
      return;
    }
    parse(request, text, done);
  });
}
