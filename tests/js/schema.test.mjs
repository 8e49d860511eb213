// A tool's input schema as the Tools form reads it (haygate/console/static/schema.js).
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { boundsText, enumFromText, propertyType } from "../../haygate/console/static/schema.js";

describe("propertyType", () => {
  test("pydantic's Optional[X] is X, and nullable", () => {
    const prop = { anyOf: [{ type: "integer", minimum: 1 }, { type: "null" }], default: null, description: "d" };
    const { type, nullable, schema } = propertyType(prop);
    assert.equal(type, "integer");
    assert.equal(nullable, true);
    assert.equal(schema.minimum, 1);
    assert.equal(schema.description, "d");
  });

  test("a list of types with null in it", () => {
    assert.deepEqual(propertyType({ type: ["null", "string"] }).type, "string");
    assert.equal(propertyType({ type: ["null", "string"] }).nullable, true);
  });

  test("without a type: an enum is a string, properties an object, anything else a string", () => {
    assert.equal(propertyType({ enum: [1, 2] }).type, "string");
    assert.equal(propertyType({ properties: {} }).type, "object");
    assert.equal(propertyType({}).type, "string");
    assert.equal(propertyType({}).nullable, false);
  });
});

describe("boundsText", () => {
  test("a range, one bound or the other, and the default", () => {
    assert.equal(boundsText({ minimum: 1, maximum: 50, default: 10 }, "integer"), "1–50, default 10");
    assert.equal(boundsText({ exclusiveMinimum: 0 }, "number"), "≥ 0");
    assert.equal(boundsText({ maxLength: 200 }, "string"), "≤ 200 characters");
    assert.equal(boundsText({ minItems: 1, maxItems: 5 }, "array"), "1–5 items");
    assert.equal(boundsText({ default: ["a"] }, "array"), 'default ["a"]');
    assert.equal(boundsText({ default: null }, "string"), "");
  });
});

test("an option's text maps back to the typed enum value", () => {
  assert.equal(enumFromText([5, 10], "10"), 10);
  assert.equal(enumFromText([true, false], "false"), false);
  assert.equal(enumFromText(["a"], "b"), undefined);
});
