import { build } from "esbuild";
await build({ entryPoints: ["test/helpers/lock-child.ts"], bundle: true, platform: "node", format: "esm", packages: "external", outfile: "/tmp/lock-child.mjs", logLevel: "error" });
