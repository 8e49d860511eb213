// What the Judge panel grades and saves (haygate/console/static/judge.js).
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { QUERY_ID, SET_NAME, SPLIT_NAME, gradeText, judgeCommand, judgedIdOf, nextQueryId, rankedResults } from "../../haygate/console/static/judge.js";

describe("judgedIdOf", () => {
  test("a section is the document's id without its chunk suffix, the provenance's id first", () => {
    assert.equal(judgedIdOf({ id: "row-id" }, { id: "guide.md#install#chunk3" }, "section"), "guide.md#install");
    assert.equal(judgedIdOf({ id: "guide.md#chunk12" }, null, "section"), "guide.md");
  });

  test("a record is the record id, else the document's", () => {
    assert.equal(judgedIdOf({ id: "d1", record_id: "r-row" }, { id: "d1#chunk0", record_id: "r1" }, "record"), "r1");
    assert.equal(judgedIdOf({ id: "d1", record_id: "r-row" }, { id: "d1#chunk0" }, "record"), "r-row");
    assert.equal(judgedIdOf({ id: "d1" }, null, "record"), "d1");
  });
});

test("rankedResults: one judged id per section, its first row ranked, rows without an id skipped", () => {
  const data = {
    result: { results: [{ id: "a#chunk0" }, { id: "a#chunk1" }, "text", { title: "no id" }, { id: "b" }] },
    provenance: [{ id: "a#chunk0" }],
  };
  const { items, order, skipped } = rankedResults(data, "section");
  assert.deepEqual(order, ["a", "b"]);
  assert.equal(skipped, 2);
  assert.deepEqual(
    items.map(({ judgedId, first, rank, provenance }) => [judgedId, first, rank, provenance]),
    [
      ["a", true, 1, { id: "a#chunk0" }],
      ["a", false, 2, null],
      ["b", true, 5, null],
    ]
  );
});

test("the next query id is one past the highest q<n>", () => {
  assert.equal(nextQueryId([]), "q1");
  assert.equal(nextQueryId([{ id: "q2" }, { id: "q10" }, { id: "custom-40" }]), "q11");
});

test("names as the server accepts them", () => {
  assert.ok(SET_NAME.test("docs-judged") && !SET_NAME.test("Docs") && !SET_NAME.test("-x") && !SET_NAME.test("a".repeat(65)));
  assert.ok(SPLIT_NAME.test("dev") && !SPLIT_NAME.test("a".repeat(33)));
  assert.ok(QUERY_ID.test("Q1.a:b-c_d") && !QUERY_ID.test(".q") && !QUERY_ID.test("q 1"));
});

test("the command that evaluates a set names its split unless it is test", () => {
  assert.equal(judgeCommand("evaluation", { name: "docs", split: "test" }), "haygate eval --judged evaluation/docs");
  assert.equal(judgeCommand("evaluation", { name: "docs", split: "dev" }), "haygate eval --judged evaluation/docs --split dev");
});

test("a grade in words", () => {
  assert.equal(gradeText(undefined), "Not judged yet");
  assert.equal(gradeText(0), "Grade 0: not relevant");
  assert.equal(gradeText(3), "Grade 3: exactly what was asked");
});
