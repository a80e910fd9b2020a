import { z } from "zod";
import { RemoteStoreError } from "../../errors.js";
import type { WireOperation } from "./wire.js";

/** An ISO-8601 timestamp that parses to a valid Date. */
const timestamp = z.string().refine((s) => /^\d{4}-\d{2}-\d{2}T/.test(s) && !Number.isNaN(new Date(s).getTime()), { message: "not a valid ISO-8601 timestamp" });
const plainObject = z.custom<Record<string, unknown>>((v) => typeof v === "object" && v !== null && !Array.isArray(v), { message: "not a JSON object" });

const wireItem = z.object({
  namespace: z.array(z.string()),
  key: z.string(),
  value: plainObject,
  created_at: timestamp,
  updated_at: timestamp,
  score: z.number().finite().nullish(),
});

const RESULT: Record<WireOperation["op"], z.ZodType> = {
  get: wireItem.nullable(),
  put: z.null(),
  search: z.array(wireItem),
  list_namespaces: z.array(z.array(z.string())),
};

const envelope = z.object({ results: z.array(z.unknown()) });

/**
 * Checks a `POST /store/batch` answer against the operations sent: one
 * result per operation, each of the shape its kind returns (items with
 * valid timestamps). A server that answers anything else is not trusted.
 *
 * @throws {RemoteStoreError} naming the first bad part, with the schema error as `cause`.
 */
export function checkBatchAnswer(body: unknown, kinds: WireOperation["op"][], context: { url: string; status: number; writes: boolean }): unknown[] {
  const bad = (what: string, cause: unknown) =>
    new RemoteStoreError(
      `memory server at ${context.url} answered ${what}${context.writes ? "; the writes of this batch may have been applied" : ""}`,
      context.status,
      undefined,
      { cause, mayHaveApplied: context.writes },
    );
  const top = envelope.safeParse(body);
  if (!top.success) throw bad(`something that is not a batch answer ({ results: [...] }): ${top.error.issues[0]?.message}`, top.error);
  const results = top.data.results;
  if (results.length !== kinds.length) throw bad(`${results.length} results for ${kinds.length} operations`, undefined);
  kinds.forEach((kind, i) => {
    const r = RESULT[kind].safeParse(results[i]);
    if (!r.success) {
      const issue = r.error.issues[0];
      throw bad(`a malformed result for operation ${i} (${kind}): ${issue?.path.join(".") || "(result)"} ${issue?.message}`, r.error);
    }
  });
  return results;
}
