/** The pure parts of the server's hardening: the Host check, the JSON depth scan, the page CSP. */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hostAllowed, LOOPBACK_HOSTS } from "../../src/server/host-guard.js";
import { jsonDepth } from "../../src/server/json-body.js";
import { pageCsp } from "../../src/server/security-headers.js";
import { routeAccess } from "../../src/server/access.js";

describe("hostAllowed", () => {
  it("allows loopback names on the local port only", () => {
    for (const h of ["127.0.0.1:8787", "localhost:8787", "[::1]:8787", "LocalHost:8787"]) expect(hostAllowed(h, LOOPBACK_HOSTS, 8787), h).toBe(true);
    for (const h of ["127.0.0.1:8788", "localhost", "evil.example:8787", "127.0.0.1.evil.example:8787", "[::1]x:8787", "0.0.0.0:8787", "", "localhost:8787:1", "a b:8787"]) {
      expect(hostAllowed(h, LOOPBACK_HOSTS, 8787), h).toBe(false);
    }
    expect(hostAllowed(undefined, LOOPBACK_HOSTS, 8787)).toBe(false);
    expect(hostAllowed("localhost", LOOPBACK_HOSTS, 80)).toBe(true); // no port = 80
  });
  it("an entry with a port pins that port", () => {
    expect(hostAllowed("box:9999", ["box:9999"], 1234)).toBe(true);
    expect(hostAllowed("box:1234", ["box:9999"], 1234)).toBe(false);
  });
});

describe("jsonDepth", () => {
  it("counts nesting outside strings, without recursion", () => {
    expect(jsonDepth('{"a":[1,{"b":2}]}')).toBe(3);
    expect(jsonDepth('"[[[[["')).toBe(0);
    expect(jsonDepth('["\\"[[[", []]')).toBe(2);
    expect(jsonDepth("[".repeat(1_000_000))).toBe(1_000_000);
    expect(jsonDepth("[".repeat(1_000_000), 10)).toBe(11);
  });
});

describe("pageCsp", () => {
  it("allows exactly the page's inline script and style by hash, and no framing", () => {
    const html = `<style>b{}</style><th style="display:none"></th><script>go()</script><script src="x.js"></script>`;
    const h = (s: string) => `'sha256-${createHash("sha256").update(s).digest("base64")}'`;
    const csp = pageCsp(html);
    expect(csp).toContain(`script-src 'self' ${h("go()")}`);
    expect(csp).toContain(`style-src 'self' 'unsafe-hashes' ${h("b{}")} ${h("display:none")}`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(csp.match(/sha256-/g)).toHaveLength(3); // the src script adds none
  });
});

describe("routeAccess", () => {
  it("reads the declared rule; anything else is no rule", () => {
    expect(routeAccess({ access: "service" })).toBe("service");
    expect(routeAccess({ public: true })).toBe("public");
    expect(routeAccess({ access: "admin" })).toBeUndefined();
    expect(routeAccess({ access: "user", public: true })).toBe("user");
    expect(routeAccess(undefined)).toBeUndefined();
    expect(routeAccess({})).toBeUndefined();
  });
});
