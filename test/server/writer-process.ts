/**
 * A writer process for the multi-process test. Usage:
 *   tsx test/server/writer-process.ts <url> <writer> <max>
 * Alternates RemoteStore puts (its own keys) and POST /v1/store/memories
 * (server-made ids), printing "ack <kind> <seq> <id>" after each write is
 * acknowledged, until <max> writes or the first failure ("stopped …").
 */
import { RemoteStore } from "../../src/store/remote/index.js";
import { API_KEY } from "./keys.js";

const [url, writer, max] = process.argv.slice(2);
const store = new RemoteStore({ url, apiKey: API_KEY, timeoutMs: 10_000 });
try {
  for (let seq = 0; seq < Number(max); seq++) {
    const value = { text: `writer ${writer} fact ${seq}`, writer, seq };
    if (seq % 2 === 0) {
      const key = `${writer}-${seq}`;
      await store.put(["procs", writer], key, value);
      process.stdout.write(`ack put ${seq} ${key}\n`);
    } else {
      const res = await fetch(`${url}/v1/store/memories`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": API_KEY },
        body: JSON.stringify({ text: value.text, metadata: { writer, seq }, user_id: writer }),
      });
      if (res.status !== 201) throw new Error(`HTTP ${res.status}`);
      process.stdout.write(`ack memory ${seq} ${((await res.json()) as { id: string }).id}\n`);
    }
  }
  process.stdout.write("done\n");
} catch (e) {
  process.stdout.write(`stopped ${(e as Error).name}: ${(e as Error).message}\n`);
}
