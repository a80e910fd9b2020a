import { createHash } from "node:crypto";
import type { FastifyReply } from "fastify";

/**
 * The Content-Security-Policy of every response that is not a page: load
 * nothing, be framed by nobody.
 */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Headers sent on every response of the memory server and the inspector. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

/** Sets the security headers a reply does not have yet (a page's own CSP is kept). */
export function applySecurityHeaders(reply: FastifyReply): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) if (!reply.hasHeader(name)) reply.header(name, value);
  if (!reply.hasHeader("content-security-policy")) reply.header("content-security-policy", API_CSP);
}

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/**
 * A strict CSP for one server-rendered page: same-origin fetches only, and
 * only the inline `<script>` and `<style>` blocks (and `style="…"`
 * attributes) that are in `html`, allowed by their hashes. Nothing injected
 * later runs, and the page cannot be framed.
 */
export function pageCsp(html: string): string {
  const scripts = [...html.matchAll(/<script(?:\s[^>]*)?>([\s\S]*?)<\/script>/gi)].filter((m) => !/\ssrc\s*=/i.test(m[0].slice(0, m[0].indexOf(">")))).map((m) => sha256(m[1]));
  const styles = [...html.matchAll(/<style(?:\s[^>]*)?>([\s\S]*?)<\/style>/gi)].map((m) => sha256(m[1]));
  const attributes = [...html.matchAll(/\sstyle="([^"]*)"/gi)].map((m) => sha256(m[1].replace(/&quot;/g, '"').replace(/&amp;/g, "&")));
  const uniq = (xs: string[]) => [...new Set(xs)].join(" ");
  return [
    "default-src 'self'",
    `script-src 'self' ${uniq(scripts)}`.trim(),
    `style-src 'self' ${attributes.length ? "'unsafe-hashes' " : ""}${uniq([...styles, ...attributes])}`.trim(),
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}
