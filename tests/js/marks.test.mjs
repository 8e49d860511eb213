// The highlighting shared by the console and the MCP Apps view (haygate/server/console/static/marks.js).
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { appendHighlighted, markedParts } from "../../haygate/server/console/static/marks.js";

/** Just enough of a DOM node for appendHighlighted: append() and ownerDocument.createElement(). */
class Node {
  constructor(tag, ownerDocument) {
    this.tag = tag;
    this.ownerDocument = ownerDocument;
    this.children = [];
  }

  append(...children) {
    this.children.push(...children);
  }

  /** The node as a tree of plain values: a text is a string, an element {tag: children}. */
  tree() {
    return this.children.map((child) => (typeof child === "string" ? child : { [child.tag]: child.tree() }));
  }
}

const documentShim = { createElement: (tag) => new Node(tag, documentShim) };
const paragraph = () => new Node("p", documentShim);

describe("markedParts", () => {
  test("the server's marks are hits, the source's emphasis is emphasis", () => {
    assert.deepEqual(markedParts("a <mark>redis</mark> cache, **not** <b>bold</b> or <STRONG>loud</STRONG>"), [
      { tag: null, text: "a " },
      { tag: "mark", text: "redis" },
      { tag: null, text: " cache, " },
      { tag: "strong", text: "not" },
      { tag: null, text: " " },
      { tag: "strong", text: "bold" },
      { tag: null, text: " or " },
      { tag: "strong", text: "loud" },
    ]);
  });

  test("plain text is one part, and nothing is no part", () => {
    assert.deepEqual(markedParts("no marks"), [{ tag: null, text: "no marks" }]);
    assert.deepEqual(markedParts(""), []);
  });

  test("a mark spans lines; unmatched tags and empty bold stay text", () => {
    assert.deepEqual(markedParts("<mark>two\nlines</mark>"), [{ tag: "mark", text: "two\nlines" }]);
    assert.deepEqual(markedParts("<b>open **** <mark>"), [{ tag: null, text: "<b>open **** <mark>" }]);
  });
});

describe("appendHighlighted", () => {
  test("appends marks and emphasis as elements, the rest as text, and returns the node", () => {
    const node = paragraph();
    assert.equal(appendHighlighted(node, "see <mark>x</mark> and **y**."), node);
    assert.deepEqual(node.tree(), ["see ", { mark: ["x"] }, " and ", { strong: ["y"] }, "."]);
  });

  test("markup the server did not mean stays text: no element but mark and strong is ever made", () => {
    const node = appendHighlighted(paragraph(), '<img src=x onerror="alert(1)"><mark><script>1</script></mark>');
    assert.deepEqual(node.tree(), ['<img src=x onerror="alert(1)">', { mark: ["<script>1</script>"] }]);
  });
});
