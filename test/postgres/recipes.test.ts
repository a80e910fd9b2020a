import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { expect, it } from "vitest";
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { databaseUrl, describeWithVectors } from "./real-server.js";

/**
 * examples/postgres/docker-compose.yml, as far as this machine allows (no
 * Docker here): the file names the official pgvector image, publishes the
 * port on loopback only and mounts init.sql; init.sql and the DATABASE_URL
 * the docs give (user, password, database from the compose file) work
 * against the real test server, as the image would set them up.
 */
const root = path.resolve(import.meta.dirname, "../..");
const compose = fs.readFileSync(path.join(root, "examples/postgres/docker-compose.yml"), "utf8");
const env = (name: string) => new RegExp(`${name}: (\\S+)`).exec(compose)?.[1];

describeWithVectors("docs/postgres.md: a real server (docker compose)", () => {
  it("the compose file: pgvector/pgvector:pg17, loopback port, init.sql mounted", () => {
    expect(compose).toMatch(/image: pgvector\/pgvector:pg17/);
    expect(compose).toMatch(/- "127\.0\.0\.1:5432:5432"/);
    expect(compose).toMatch(/\.\/init\.sql:\/docker-entrypoint-initdb\.d\/init\.sql:ro/);
    expect(fs.readFileSync(path.join(root, "examples/postgres/init.sql"), "utf8")).toMatch(/CREATE EXTENSION IF NOT EXISTS vector;/);
  });

  it("init.sql and the documented DATABASE_URL work as the image sets them up", async () => {
    const [user, password, database] = [env("POSTGRES_USER"), env("POSTGRES_PASSWORD"), env("POSTGRES_DB")];
    expect([user, password, database]).toEqual(["memory", "memory", "memory"]);
    const admin = new pg.Client({ connectionString: databaseUrl() });
    await admin.connect();
    const db = `${database}_${process.pid}`;
    try {
      // What the image's entrypoint does: POSTGRES_USER is a superuser owning POSTGRES_DB, then initdb.d/*.sql runs in it.
      await admin.query(`DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${user}') THEN CREATE ROLE ${user} SUPERUSER LOGIN PASSWORD '${password}'; END IF; END $$`);
      await admin.query(`CREATE DATABASE ${db} OWNER ${user}`);
      const url = new URL(databaseUrl());
      url.username = user!;
      url.password = password!;
      url.pathname = `/${db}`;
      const init = new pg.Client({ connectionString: url.toString() });
      await init.connect();
      await init.query(fs.readFileSync(path.join(root, "examples/postgres/init.sql"), "utf8"));
      await init.end();
      const store = new PostgresMemoryStore({ connectionString: url.toString(), index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }) } });
      try {
        await store.put(["users", "42"], "home", { text: "Lives in Lisbon" });
        expect((await store.search(["users", "42"], { query: "Lisbon" }))[0].key).toBe("home");
        expect((await store.stats()).pgvector).toMatch(/^0\.\d+\.\d+$/);
      } finally {
        await store.close();
      }
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
      await admin.end();
    }
  });
});
