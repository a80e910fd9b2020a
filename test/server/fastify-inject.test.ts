/**
 * package.json overrides light-my-request's `cookie` to ^1.1.1 (cookie 2
 * declares Node >= 22, and `engines` says >= 20). Fastify's `inject`, used by
 * tests and plugins, must still send cookies with it.
 */
import Fastify from "fastify";
import { describe, expect, it } from "vitest";

describe("Fastify inject with the overridden cookie package", () => {
  it("sends cookies as a Cookie header", async () => {
    const app = Fastify();
    app.get("/echo", async (request) => ({ cookie: request.headers.cookie ?? null }));
    const res = await app.inject({ method: "GET", url: "/echo", cookies: { session: "a b", theme: "dark" } });
    expect(res.json()).toEqual({ cookie: "session=a%20b; theme=dark" });
    await app.close();
  });
});
