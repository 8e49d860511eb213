// The console's pure text helpers (haygate/console/static/format.js).
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { asText, clip, firstPresent, fmtBytes, fmtDate, fmtDuration, fmtFixed, fmtMs, fmtNumber, isPlainObject, present, pretty, shellQuote } from "../../haygate/console/static/format.js";

describe("present and firstPresent", () => {
  test("a value is present unless it is undefined, null or the empty string", () => {
    assert.deepEqual([0, false, " ", [], {}].map(present), [true, true, true, true, true]);
    assert.deepEqual([undefined, null, ""].map(present), [false, false, false]);
  });

  test("the first present key wins; 0 counts as present", () => {
    assert.equal(firstPresent({ title: "", name: 0, key: "k" }, ["title", "name", "key"]), 0);
    assert.equal(firstPresent({ title: null }, ["title"]), undefined);
    assert.equal(firstPresent(null, ["title"]), undefined);
  });
});

describe("asText and isPlainObject", () => {
  test("objects read as their JSON, absent values as nothing", () => {
    assert.equal(asText({ a: [1, 2] }), '{"a":[1,2]}');
    assert.equal(asText(12.5), "12.5");
    assert.equal(asText(null), "");
  });

  test("an array or null is not a plain object", () => {
    assert.deepEqual([{}, [], null, "x"].map(isPlainObject), [true, false, false, false]);
  });
});

describe("numbers", () => {
  test("fmtNumber keeps whole numbers and rounds the rest to significant digits", () => {
    assert.equal(fmtNumber(42), "42");
    assert.equal(fmtNumber(0.0325123), "0.03251");
    assert.equal(fmtNumber(0.0325123, 2), "0.033");
    assert.equal(fmtNumber(1 / 3, 3), "0.333");
  });

  test("anything but a finite number is a dash", () => {
    assert.deepEqual([NaN, Infinity, "3", undefined].map((v) => fmtNumber(v)), ["—", "—", "—", "—"]);
  });

  test("fixed digits, and milliseconds with one", () => {
    assert.equal(fmtFixed(0.5), "0.5000");
    assert.equal(fmtMs(12.345), "12.3");
    assert.equal(fmtMs(undefined), "—");
  });

  test("bytes in the largest unit under 1024, with one decimal above bytes", () => {
    assert.equal(fmtBytes(512), "512 B");
    assert.equal(fmtBytes(1536), "1.5 KB");
    assert.equal(fmtBytes(3 * 1024 ** 3), "3.0 GB");
    assert.equal(fmtBytes(2 * 1024 ** 5), "2048.0 TB");
    assert.equal(fmtBytes(null), "—");
  });

  test("durations in their two largest units", () => {
    assert.equal(fmtDuration(42.9), "42 s");
    assert.equal(fmtDuration(61), "1 min 1 s");
    assert.equal(fmtDuration(3 * 3600 + 120), "3 h 2 min");
    assert.equal(fmtDuration(2 * 86400 + 5 * 3600), "2 d 5 h");
    assert.equal(fmtDuration("1"), "—");
  });

  test("a date that cannot be read stays as it came", () => {
    assert.equal(fmtDate("not a date"), "not a date");
    assert.equal(fmtDate(""), "—");
    assert.equal(fmtDate("2026-11-26T10:00:00Z"), new Date("2026-11-26T10:00:00Z").toLocaleString());
  });
});

describe("text", () => {
  test("clip cuts at the limit and says so", () => {
    assert.equal(clip("abcdef", 3), "abc…");
    assert.equal(clip("abc", 3), "abc");
  });

  test("shellQuote makes one shell word of anything, quotes included", () => {
    assert.equal(shellQuote(`{"q": "it's"}`), `'{"q": "it'\\''s"}'`);
  });

  test("pretty indents by two", () => {
    assert.equal(pretty({ a: 1 }), '{\n  "a": 1\n}');
  });
});
