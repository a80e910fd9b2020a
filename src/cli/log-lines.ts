/**
 * The memory server's log (Fastify's pino JSON, one object a line) as lines
 * a person reads at a terminal: one line per request, when it completes
 * (`14:03:07 GET /v1/store/memories/:id 200 3.1 ms`: the route as declared, or
 * the URL when the server logs values), and other records as
 * `time level message`. A line that is not JSON is passed on as it is.
 */
const LEVELS: Record<number, string> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };

interface PinoRecord {
  level?: number;
  time?: number;
  msg?: string;
  reqId?: string;
  req?: { method?: string; url?: string; route?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  err?: { message?: string };
}

/** A pino destination (`{ write(line) }`) that writes readable lines to `out`. */
export function readableLogStream(out: { write(text: string): unknown } = process.stderr): { write(line: string): void } {
  const pending = new Map<string, string>();
  return {
    write(line: string) {
      let r: PinoRecord;
      try {
        r = JSON.parse(line) as PinoRecord;
      } catch {
        out.write(line.endsWith("\n") ? line : `${line}\n`);
        return;
      }
      const time = new Date(typeof r.time === "number" ? r.time : Date.now()).toTimeString().slice(0, 8);
      if (r.req && r.reqId !== undefined && !r.res) {
        // "incoming request": kept until the request completes, so each request is one line.
        pending.set(r.reqId, `${r.req.method ?? "?"} ${r.req.url ?? r.req.route ?? "?"}`);
        return;
      }
      if (r.res && r.reqId !== undefined) {
        const request = pending.get(r.reqId) ?? "request";
        pending.delete(r.reqId);
        const took = typeof r.responseTime === "number" ? ` ${r.responseTime.toFixed(1)} ms` : "";
        out.write(`${time} ${request} ${r.res.statusCode ?? "?"}${took}\n`);
        return;
      }
      const level = LEVELS[r.level ?? 30] ?? String(r.level);
      out.write(`${time} ${level} ${r.msg ?? ""}${r.err?.message && r.err.message !== r.msg ? `: ${r.err.message}` : ""}\n`);
    },
  };
}
