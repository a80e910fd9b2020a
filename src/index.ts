export * from "./errors.js";
export { encodeLabel, decodeLabel, resolveNamespace, templateKeys, type NamespaceTemplate } from "./nodes/namespace-template.js";
