import { Validator } from "@cfworker/json-schema";
import { expect, it } from "vitest";
import { publishedDocument } from "../helpers/documented-responses";

/**
 * Every example the published document carries is valid against the schema it illustrates: a
 * client generated from the document, or a mock server answering its examples, must not be
 * handed a value the service itself would refuse (an integer path id shown as the string "42").
 */
const SCHEMA_KEYWORDS = ["type", "$ref", "anyOf", "oneOf", "allOf", "enum", "const"];

const pointerOf = (path: string[]) =>
  path.map((part) => encodeURI(part.replaceAll("~", "~0").replaceAll("/", "~1"))).join("/");

/** [where the example sits, the pointer of the schema it illustrates, the example] for each one. */
function examplesOf(node: unknown, path: string[] = []): [string, string[], unknown][] {
  if (typeof node !== "object" || node === null) return [];
  const found: [string, string[], unknown][] = [];
  const record = node as Record<string, unknown>;
  const isSchema = SCHEMA_KEYWORDS.some((k) => k in record);
  // A schema's own example; a parameter's or a media type's illustrates its `schema`.
  const target = isSchema ? path : "schema" in record ? [...path, "schema"] : undefined;
  if (target) {
    if ("example" in record) found.push([pointerOf(path), target, record.example]);
    const examples = record.examples;
    if (Array.isArray(examples) && isSchema) {
      for (const example of examples) found.push([pointerOf(path), target, example]);
    } else if (examples && typeof examples === "object" && !isSchema) {
      for (const [name, example] of Object.entries(examples as Record<string, { value?: unknown }>))
        if ("value" in example) found.push([`${pointerOf(path)} (${name})`, target, example.value]);
    }
  }
  for (const [key, child] of Object.entries(record)) {
    // A property named "example" is a schema, walked as one, not an example.
    if ((key === "example" || key === "examples") && target) continue;
    found.push(...examplesOf(child, [...path, key]));
  }
  return found;
}

it("every example in /api/openapi.json is valid against its own schema", async () => {
  const doc = (await publishedDocument()) as object;
  const examples = examplesOf(doc);
  // The document illustrates most schemas; a walk that finds few has lost its way.
  expect(examples.length).toBeGreaterThan(100);
  const invalid: string[] = [];
  const components = (doc as { components: unknown }).components;
  for (const [where, path, example] of examples) {
    let schema: unknown = doc;
    for (const part of path) schema = (schema as Record<string, unknown>)[part];
    // The schema with the document's components beside it, where its "#/components/..." point.
    const validator = new Validator({ ...(schema as object), components } as never, "2020-12");
    const verdict = validator.validate(example);
    if (!verdict.valid) {
      const first = verdict.errors.at(-1);
      invalid.push(`${where}: ${JSON.stringify(example)}: ${first?.error ?? "invalid"}`);
    }
  }
  expect(invalid).toEqual([]);
});

it("every integer a request may carry states the range the service takes (±(2^53-1) at most)", async () => {
  const doc = (await publishedDocument()) as {
    paths: Record<string, Record<string, { requestBody?: unknown; parameters?: unknown[] }>>;
  };
  const resolve = (ref: string) =>
    ref
      .split("/")
      .slice(1)
      .reduce<unknown>(
        (node, key) =>
          (node as Record<string, unknown>)[key.replaceAll("~1", "/").replaceAll("~0", "~")],
        doc,
      );
  const seen = new Set<string>();
  const unbounded: string[] = [];
  const walk = (node: unknown, where: string) => {
    if (typeof node !== "object" || node === null) return;
    const schema = node as Record<string, unknown>;
    if (typeof schema.$ref === "string") {
      if (!seen.has(schema.$ref)) {
        seen.add(schema.$ref);
        walk(resolve(schema.$ref), schema.$ref);
      }
      return;
    }
    const types = ([] as unknown[]).concat(schema.type ?? []);
    if (types.includes("integer")) {
      const { minimum, maximum } = schema as { minimum?: number; maximum?: number };
      if (
        minimum === undefined ||
        maximum === undefined ||
        minimum < -Number.MAX_SAFE_INTEGER ||
        maximum > Number.MAX_SAFE_INTEGER
      )
        unbounded.push(`${where}: ${JSON.stringify({ minimum, maximum })}`);
    }
    for (const [key, child] of Object.entries(schema))
      if (key !== "example" && key !== "examples") walk(child, `${where}/${key}`);
  };
  for (const [path, operations] of Object.entries(doc.paths))
    for (const [method, operation] of Object.entries(operations)) {
      walk(operation.requestBody, `${method} ${path} body`);
      for (const parameter of operation.parameters ?? []) walk(parameter, `${method} ${path}`);
    }
  expect(seen.size).toBeGreaterThan(20);
  expect(unbounded).toEqual([]);
});
