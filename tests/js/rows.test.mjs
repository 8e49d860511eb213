// Reading a tool result's rows and their provenance (haygate/console/static/rows.js).
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { maxRank, provenanceLine, rankChange, resultRows, rowKey, rowTitle } from "../../haygate/console/static/rows.js";

describe("resultRows", () => {
  test("a result's `results` list, when it has one", () => {
    assert.deepEqual(resultRows({ results: [], candidates: [{ id: 1 }] }), []);
  });

  test("else the first list of objects, else the first list", () => {
    assert.deepEqual(resultRows({ tags: ["a"], candidates: [{ candidate_id: "c1" }] }), [{ candidate_id: "c1" }]);
    assert.deepEqual(resultRows({ tags: ["a"], empty: [] }), ["a"]);
  });

  test("nothing for anything but an object", () => {
    assert.deepEqual([null, [1], "x"].map(resultRows), [[], [], []]);
  });
});

describe("a row's title and key", () => {
  test("the title is the first present of title, name, summary, key, candidate_id, id", () => {
    assert.equal(rowTitle({ title: "", name: "Ada", id: 7 }), "Ada");
    assert.equal(rowTitle({ id: 7 }), "7");
    assert.equal(rowTitle({}), "(untitled)");
  });

  test("the key is the row's id, else its title", () => {
    assert.equal(rowKey({ key: "k1", title: "T" }), "k1");
    assert.equal(rowKey({ title: "T" }), "T");
  });
});

describe("provenance", () => {
  test("bars scale to the largest rank any source gave, the row count at least", () => {
    assert.equal(maxRank([{ dense_rank: 3, sparse_rank: 40 }, null], 10), 40);
    assert.equal(maxRank(undefined, 0), 1);
  });

  test("the line names each source's rank and the scores", () => {
    const entry = { dense_rank: 2, dense_score: 0.8123, sparse_rank: 1, fused_score: 1 / (60 + 2) + 1 / (60 + 1), rerank_score: null };
    assert.equal(provenanceLine(entry), "dense #2 (0.81) · BM25 #1 · fused 0.0325 · rerank —");
    assert.equal(provenanceLine({}), "dense — · BM25 — · fused — · rerank —");
  });

  test("a rank change says which way and how far", () => {
    assert.deepEqual(rankChange(4, 1), { change: "▲3", kind: "up" });
    assert.deepEqual(rankChange(0, 2), { change: "▼2", kind: "down" });
    assert.deepEqual(rankChange(1, 1), { change: "=", kind: "same" });
    assert.deepEqual(rankChange(-1, 0), { change: "new", kind: "new" });
  });
});
