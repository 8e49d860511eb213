// The console's API client (haygate/console/static/api.js), against a fetch of the test's own.
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, test } from "node:test";

import { ApiError, api, authHeaders, errorFromBody, errorText, fieldProblems, parseJson, setToken } from "../../haygate/console/static/api.js";

/** sessionStorage as a Map, as the browser keeps the token for a tab. */
function storage() {
  const items = new Map();
  return { getItem: (key) => items.get(key) ?? null, setItem: (key, value) => items.set(key, value), removeItem: (key) => items.delete(key) };
}

describe("errors", () => {
  test("the server's envelope becomes the error", () => {
    const error = errorFromBody(422, { error: { code: "INVALID_ARGUMENT", message: "bad", details: { field: "top_k" } } }, "");
    assert.ok(error instanceof ApiError);
    assert.deepEqual([error.status, error.code, error.message, error.details], [422, "INVALID_ARGUMENT", "bad", { field: "top_k" }]);
  });

  test("a body without an envelope is named by its status and its text's first 200 characters", () => {
    const error = errorFromBody(502, null, ` ${"x".repeat(300)} `);
    assert.equal(error.code, "HTTP_502");
    assert.equal(error.message, `HTTP 502: ${"x".repeat(200)}`);
    assert.equal(errorFromBody(500, undefined, "").message, "HTTP 500");
  });

  test("parseJson: null for nothing, undefined for what is not JSON", () => {
    assert.deepEqual([parseJson(""), parseJson("{"), parseJson('{"a": 1}')], [null, undefined, { a: 1 }]);
  });

  test("field problems from a list of errors, or from one field", () => {
    const listed = new ApiError(422, "INVALID_ARGUMENT", "2 problems", { errors: [{ field: "query", msg: "too short" }, { field: 0 }] });
    assert.deepEqual(fieldProblems(listed), [
      { field: "query", message: "too short", location: undefined },
      { field: "0", message: "2 problems", location: undefined },
    ]);
    assert.deepEqual(fieldProblems(new ApiError(422, "X", "bad", { field: "top_k" })), [{ field: "top_k", message: "bad" }]);
    assert.deepEqual(fieldProblems(new ApiError(500, "X", "bad", {})), []);
  });

  test("errorText adds the problems that say more than the message", () => {
    const error = new ApiError(422, "X", "top_k is 0", { errors: [{ field: "top_k", message: "top_k is 0" }, { field: "", message: "and more" }] });
    assert.equal(errorText("Query q1", error), "Query q1: top_k is 0\narguments: and more");
  });
});

describe("api", () => {
  let calls;
  let answer;

  beforeEach(() => {
    calls = [];
    globalThis.sessionStorage = storage();
    globalThis.fetch = async (path, init) => {
      calls.push({ path, init });
      if (answer instanceof Error) throw answer;
      return answer;
    };
  });

  afterEach(() => {
    delete globalThis.fetch;
    delete globalThis.sessionStorage;
  });

  test("sends JSON with the token and reads JSON back", async () => {
    setToken("t0k");
    answer = new Response('{"ok": true}', { status: 200 });
    assert.deepEqual(await api("/api/console/call", { method: "POST", body: { tool: "search_docs" } }), { ok: true });
    const [{ path, init }] = calls;
    assert.equal(path, "/api/console/call");
    assert.deepEqual(init, {
      method: "POST",
      headers: { accept: "application/json", Authorization: "Bearer t0k", "content-type": "application/json" },
      body: '{"tool":"search_docs"}',
    });
  });

  test("no token, no Authorization header", () => {
    setToken("");
    assert.deepEqual(authHeaders({ accept: "x" }), { accept: "x" });
  });

  test("an error status throws the server's envelope", async () => {
    answer = new Response('{"error": {"code": "NOT_FOUND", "message": "no such tool"}}', { status: 404 });
    await assert.rejects(api("/api/tools/x"), { status: 404, code: "NOT_FOUND", message: "no such tool" });
  });

  test("an answer that is not JSON, and no answer at all, are errors of their own", async () => {
    answer = new Response("<html>", { status: 200 });
    await assert.rejects(api("/api/console/info"), { code: "BAD_RESPONSE" });
    answer = new TypeError("Failed to fetch");
    await assert.rejects(api("/api/console/info"), { status: 0, code: "NETWORK_ERROR", message: "Network error: the server did not answer (Failed to fetch)." });
  });
});
