/** Raw HTTP/1.1 requests to 127.0.0.1 that keep the path exactly as written (fetch would normalise `..`, `//` and case of nothing). */
import http from "node:http";

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export function raw(port: number, method: string, path: string, options: { headers?: Record<string, string>; body?: unknown; rawBody?: string; host?: string | null; address?: string } = {}): Promise<RawAnswer> {
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const headers: Record<string, string> = { ...options.headers };
  if (options.host !== null) headers.host = options.host ?? `127.0.0.1:${port}`;
  if (body !== undefined) {
    headers["content-type"] ??= "application/json";
    headers["content-length"] = String(Buffer.byteLength(body));
  }
  return new Promise((resolve, reject) => {
    const req = http.request({ host: options.address ?? "127.0.0.1", port, method, path, headers, setHost: false, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}
