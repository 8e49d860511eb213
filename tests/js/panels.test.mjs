// The pure parts of the Tools, Compare, Collections, Evaluations panels and the tabs.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { uploadContentType, metaSummary } from "../../haygate/console/static/collections.js";
import { compareArguments, preferredPipeline, queryArgument } from "../../haygate/console/static/compare.js";
import { metricNames, queryDeltas } from "../../haygate/console/static/evaluations.js";
import { tabOf } from "../../haygate/console/static/tabs.js";

const TOOL = {
  name: "search_docs",
  input_schema: { properties: { top_k: { type: "integer" }, query: { type: "string" }, version: { type: "string" } }, required: ["query", "version"] },
  examples: [{ query: "install", version: "1.1", top_k: 3 }],
};

describe("compare", () => {
  test("the query-like argument is the first string among query, text, keywords, topic", () => {
    assert.equal(queryArgument(TOOL), "query");
    assert.equal(queryArgument({ input_schema: { properties: { query: { type: "integer" }, topic: { anyOf: [{ type: "string" }, { type: "null" }] } } } }), "topic");
    assert.equal(queryArgument(undefined), undefined);
  });

  test("the first example's required arguments, with the typed query", () => {
    assert.deepEqual(compareArguments(TOOL, "upgrade"), { query: "upgrade", version: "1.1" });
    assert.deepEqual(compareArguments(TOOL, "  "), { query: "install", version: "1.1" });
  });

  test("a variant of the tool's pipeline is preferred to the tool's own file", () => {
    const pipelines = ["tools/search_docs.yaml", "eval/search_docs_bm25.yaml", "tools/search.yaml"];
    assert.equal(preferredPipeline(pipelines, "search_docs"), "eval/search_docs_bm25.yaml");
    assert.equal(preferredPipeline(["tools/search_docs.yaml"], "search_docs"), "tools/search_docs.yaml");
    assert.equal(preferredPipeline(null, "search_docs"), "");
  });
});

describe("collections", () => {
  test("an upload's content type comes from its extension", () => {
    assert.deepEqual(
      ["a.JSONL", "b.ndjson", "c.json", "d.csv", "e.md", "f.markdown", "g.txt"].map(uploadContentType),
      ["application/jsonl", "application/jsonl", "application/json", "text/csv", "text/markdown", "text/markdown", undefined]
    );
  });

  test("a document's meta reads as its keys", () => {
    assert.equal(metaSummary({ path: "a", version: "1" }), "path, version");
    assert.equal(metaSummary({}), "—");
    assert.equal(metaSummary(null), "—");
  });
});

describe("evaluations", () => {
  test("every metric of any variant, in the order first seen", () => {
    assert.deepEqual(metricNames([{ metrics: { "ndcg@10": 1, mrr: 1 } }, {}, { metrics: { "recall@5": 1, mrr: 1 } }]), ["ndcg@10", "mrr", "recall@5"]);
  });

  test("wins and losses against the baseline, largest first, queries scored by both only", () => {
    const baseline = { per_query: { mrr: { q1: 0.5, q2: 1, q3: 0.25, q4: 1 } } };
    const variant = { per_query: { mrr: { q1: 1, q2: 0.5, q3: 1, q4: 1, q5: 1 } } };
    const { wins, losses } = queryDeltas(baseline, variant, "mrr");
    assert.deepEqual(
      wins.map((d) => [d.queryId, d.delta]),
      [
        ["q3", 1 - 0.25],
        ["q1", 1 - 0.5],
      ]
    );
    assert.deepEqual(losses, [{ queryId: "q2", base: 1, score: 0.5, delta: 0.5 - 1 }]);
  });
});

test("a hash names a tab; any other opens Tools", () => {
  assert.equal(tabOf("#judge"), "judge");
  assert.equal(tabOf("live"), "live");
  assert.equal(tabOf("#nothing"), "tools");
  assert.equal(tabOf(""), "tools");
});
