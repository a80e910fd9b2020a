/**
 * URLs in error messages and logs, without their secrets. A connection URL
 * can carry a password (`postgres://u:secret@db/x`), an API key in its
 * query (`?password=…`, `?sslpassword=…`) or in its fragment; none of them
 * may reach a message, a log line or a `cause`.
 *
 * The URL is read with the WHATWG parser (`new URL`), never with a pattern:
 * user name and password become `***`, the query becomes `?***` and the
 * fragment is dropped. A value the parser refuses (a password with an
 * unencoded `/` makes `postgres://u:Pa55/word@db/x` unparseable) is shown
 * as its scheme and, when there is an `@`, only what follows the last `@`
 * (the user part may hold any character, the host part cannot hold `@`);
 * without an `@` nothing after the scheme is shown.
 */
export function redactUrl(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url) {
    const auth = url.username || url.password ? "***@" : "";
    if (!url.host) return `${url.protocol}…`;
    const path = url.pathname === "/" ? "" : url.pathname;
    return `${url.protocol}//${auth}${url.host}${path}${url.search ? "?***" : ""}`;
  }
  const scheme = /^([a-z][a-z0-9+.-]*:)(\/\/)?/i.exec(value);
  if (!scheme) return "(not a URL; not shown)";
  const rest = value.slice(scheme[0].length);
  const at = rest.lastIndexOf("@");
  if (at < 0) return `${scheme[0]}…`;
  const after = rest.slice(at + 1).replace(/[?#].*$/s, (q) => (q.startsWith("?") ? "?***" : ""));
  return `${scheme[0]}***@${after}`;
}

/** True when `value` parses as a URL that carries a user name or a password. */
export function urlHasCredentials(value: string): boolean {
  try {
    const url = new URL(value);
    return url.username !== "" || url.password !== "";
  } catch {
    return false;
  }
}
