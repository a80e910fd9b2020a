import { createHmac } from "node:crypto";

/** HMAC-SHA256 of `text` under `secret`, hex, shortened to 32 characters (128 bits). */
export function keyedHash(secret: Buffer | string, text: string): string {
  return createHmac("sha256", secret).update(text).digest("hex").slice(0, 32);
}
