// A small JSON-schema check of GitHub's answers against the OpenAPI
// document @octokit/openapi publishes (api.github.com.json): types,
// required properties, nullable, items and the allOf/anyOf/oneOf
// combinators — what a typed client relies on. Formats, patterns and
// enums are not checked.
import fs from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const file = require.resolve("@octokit/openapi/generated/api.github.com.json");
const doc = JSON.parse(fs.readFileSync(file, "utf8"));

function resolve(schema) {
  while (schema && schema.$ref) {
    const parts = schema.$ref.replace(/^#\//, "").split("/");
    schema = parts.reduce((o, k) => o[k.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
  }
  return schema;
}

// responseSchema is the schema of route's (e.g. "GET /repos/{owner}/{repo}")
// answer with status.
export function responseSchema(route, status) {
  const [method, path] = route.split(" ");
  const op = doc.paths[path]?.[method.toLowerCase()];
  if (!op) throw new Error(`${route} is not in GitHub's OpenAPI document`);
  const res = resolve(op.responses[String(status)]);
  if (!res) throw new Error(`${route} has no ${status} answer in GitHub's OpenAPI document`);
  return resolve(res.content?.["application/json"]?.schema);
}

function typeOf(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function typeOK(want, got) {
  return want === got || (want === "number" && got === "integer");
}

// validate returns the differences of value from schema, each a string
// "<json path>: <what>".
export function validate(schema, value, path = "$", out = []) {
  schema = resolve(schema);
  if (!schema) return out;
  if (value === null) {
    const types = [].concat(schema.type ?? []);
    if (!schema.nullable && !types.includes("null") && (schema.type || schema.properties)) {
      out.push(`${path}: null, not nullable`);
    }
    return out;
  }
  for (const s of schema.allOf ?? []) validate(s, value, path, out);
  for (const key of ["anyOf", "oneOf"]) {
    if (!schema[key]) continue;
    let best;
    for (const s of schema[key]) {
      const errs = validate(s, value, path, []);
      if (!best || errs.length < best.length) best = errs;
      if (errs.length === 0) break;
    }
    out.push(...best);
  }
  const types = [].concat(schema.type ?? []).filter((t) => t !== "null");
  const got = typeOf(value);
  if (types.length && !types.some((t) => typeOK(t, got))) {
    out.push(`${path}: ${got}, want ${types.join("|")}`);
    return out;
  }
  if (got === "object") {
    for (const r of schema.required ?? []) {
      if (!(r in value)) out.push(`${path}.${r}: missing (required)`);
    }
    for (const [k, s] of Object.entries(schema.properties ?? {})) {
      if (k in value) validate(s, value[k], `${path}.${k}`, out);
    }
  }
  if (got === "array" && schema.items) {
    // One element in each list is enough to show a shape.
    if (value.length) validate(schema.items, value[0], `${path}[0]`, out);
  }
  return out;
}
