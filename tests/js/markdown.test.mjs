// A result's Markdown as the console and the MCP Apps view render it (haygate/console/static/markdown.js),
// with the vendored markdown-it the pages load (static/vendor/markdown-it.umd.min.js, read here as CommonJS).
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { describe, test } from "node:test";

import { ALLOWED, appendMarkdown, markdownHtml, markedSource } from "../../haygate/console/static/markdown.js";

const markdownit = createRequire(import.meta.url)("../../haygate/console/static/vendor/markdown-it.umd.min.js");
const SENTINEL = /[\uE000\uE001]/;

/** The text's HTML, checked to hold no sentinel (whatever the test asserts besides). */
function render(text, options = {}) {
  const html = markdownHtml(text, { markdownit, ...options });
  assert.doesNotMatch(html, SENTINEL, `a sentinel leaked: ${JSON.stringify(html)}`);
  return html;
}

/** The opening tags of an HTML string, e.g. ["p", "a", "code"]: what elements it would make. */
const tagsOf = (html) => Array.from(html.matchAll(/<([a-z][a-z0-9]*)\b/gi), (match) => match[1].toLowerCase());

/** Each element's attributes, as "tag name" (markdown-it writes every value in double quotes, its own escaped). */
const attributesOf = (html) =>
  Array.from(html.matchAll(/<([a-z][a-z0-9]*)((?:\s[^\s=>]+="[^"]*")*)\s*\/?>/gi), ([, tag, attributes]) =>
    Array.from(attributes.matchAll(/\s([^\s=]+)="[^"]*"/g), ([, name]) => `${tag} ${name}`)
  ).flat();

describe("Markdown", () => {
  test("links, inline code, code blocks, bold and italic, lists, tables and quotes render", () => {
    const html = render(
      [
        "Set `HAYGATE_TOKEN` first: see [the guide](https://example.org/deploy \"Deploy\"), **bold** and *italic*, ~~gone~~.",
        "",
        "```bash",
        "export HAYGATE_TOKEN=x   # kept as written",
        "```",
        "",
        "- one",
        "- two",
        "",
        "3. third",
        "",
        "| name | size |",
        "|:-----|-----:|",
        "| a    | 1    |",
        "",
        "> quoted",
      ].join("\n")
    );
    assert.match(html, /<code>HAYGATE_TOKEN<\/code>/);
    assert.match(html, /<a href="https:\/\/example\.org\/deploy" title="Deploy" target="_blank" rel="noopener noreferrer">the guide<\/a>/);
    assert.match(html, /<strong>bold<\/strong> and <em>italic<\/em>, <s>gone<\/s>/);
    assert.match(html, /<pre><code class="language-bash">export HAYGATE_TOKEN=x {3}# kept as written\n<\/code><\/pre>/);
    assert.match(html, /<ul>\n<li>one<\/li>\n<li>two<\/li>\n<\/ul>/);
    assert.match(html, /<ol start="3">/);
    assert.match(html, /<th class="md-align-left">name<\/th>\n<th class="md-align-right">size<\/th>/);
    assert.match(html, /<blockquote>\n<p>quoted<\/p>/);
    assert.doesNotMatch(html, /style=/); // alignment is a class: the view's policy refuses style attributes
  });

  test("a heading is a paragraph of bold text, not a heading of the page; an image is its alt text", () => {
    const html = render("# Install\n\n### Then\n\n![a diagram](https://example.org/d.png)");
    assert.equal(html, '<p class="md-heading">Install</p>\n<p class="md-heading">Then</p>\n<p><span class="md-image">a diagram</span></p>\n');
  });

  test("every element made is one the page allows", () => {
    const html = render("# h\n\n**b** *i* ~~s~~ `c` [l](https://x.org) ![i](https://x.org/i.png)\n\n---\n\n> q\n\n1. o\n\n- u\n\n```\np\n```\n\n| t |\n|---|\n| d |\n\nline  \nbreak");
    const made = new Set(tagsOf(html));
    assert.deepEqual([...made].filter((tag) => !(tag in ALLOWED)), []);
    for (const tag of ["p", "strong", "em", "s", "code", "a", "span", "hr", "blockquote", "ol", "ul", "li", "pre", "table", "thead", "tbody", "tr", "th", "td", "br"]) assert.ok(made.has(tag), tag);
  });
});

describe("the server's marks", () => {
  test("a mark inside bold, code, a link's text, a list item and a code block is a <mark> there", () => {
    assert.equal(render("Set the **<mark>quokka</mark>** token"), "<p>Set the <strong><mark>quokka</mark></strong> token</p>\n");
    assert.equal(render("`HAYGATE_<mark>TOKEN</mark>`"), "<p><code>HAYGATE_<mark>TOKEN</mark></code></p>\n");
    assert.equal(
      render("[the <mark>token</mark> guide](https://example.org/<mark>token</mark> \"a <mark>token</mark>\")"),
      '<p><a href="https://example.org/token" title="a token" target="_blank" rel="noopener noreferrer">the <mark>token</mark> guide</a></p>\n'
    );
    assert.equal(render("- one <mark>quokka</mark>\n- two"), "<ul>\n<li>one <mark>quokka</mark></li>\n<li>two</li>\n</ul>\n");
    assert.equal(render("```<mark>sh</mark>\nexport <mark>TOKEN</mark>=1\n```"), '<pre><code class="language-sh">export <mark>TOKEN</mark>=1\n</code></pre>\n');
  });

  test("a mark around bold, and a mark that spans lines, stay marks", () => {
    assert.equal(render("<mark>**quokka**</mark>"), "<p><mark><strong>quokka</strong></mark></p>\n");
    assert.equal(render("<mark>two\nlines</mark>"), "<p><mark>two\nlines</mark></p>\n");
  });

  test("only a pair is a mark; a lone tag, and the text's own sentinels, are text", () => {
    assert.equal(render("<mark>open and </mark >"), "<p>&lt;mark&gt;open and &lt;/mark &gt;</p>\n");
    assert.equal(render("a\uE000b\uE001c \uE001d"), "<p>abc d</p>\n");
  });

  test("a text cut to its limit closes the mark it cut, and says it was cut", () => {
    assert.equal(markedSource("one <mark>quokka</mark> two", 7), "one \uE000qu\uE001…");
    assert.equal(render("one <mark>quokka</mark> two", { limit: 7 }), "<p>one <mark>qu</mark>…</p>\n");
    assert.equal(render("short", { limit: 7 }), "<p>short</p>\n");
  });
});

describe("a hostile text", () => {
  const hostile = {
    script: "<script>alert(1)</script>",
    "img onerror": "<img src=x onerror=alert(1)>",
    "javascript: link": "[x](javascript:alert(1))",
    "JAVASCRIPT: link, spaced": "[x](  JAVASCRIPT:alert(1))",
    "javascript: split by a mark": "[x](java<mark>script</mark>:alert(1))",
    "javascript: in a reference": "[x][1]\n\n[1]: javascript:alert(1)",
    "javascript: autolink": "<javascript:alert(1)>",
    "vbscript: link": "[x](vbscript:msgbox(1))",
    "file: link": "[x](file:///etc/passwd)",
    "data: link": "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "javascript: image": "![x](javascript:alert(1))",
    "html block": '<div onclick="alert(1)">\n\n**x**\n\n</div>',
    "a mark holding a script": "<mark><script>alert(1)</script></mark>",
    "an attribute broken out of": '[x](<https://example.org/" onmouseover="alert(1)> "t\\" onclick=\\"alert(1)")',
  };

  for (const [name, text] of Object.entries(hostile)) {
    test(`${name}: escaped or dropped, never an element or an address that runs`, () => {
      const html = render(text);
      assert.deepEqual(tagsOf(html).filter((tag) => !["p", "a", "mark", "strong", "span"].includes(tag)), [], html);
      assert.doesNotMatch(html, /href="\s*(javascript|vbscript|file|data):/i, html);
      const unexpected = attributesOf(html).filter((pair) => !["a href", "a title", "a target", "a rel", "span class", "p class"].includes(pair));
      assert.deepEqual(unexpected, [], html); // no handler, no source: only a link's own attributes
    });
  }

  test("its tags show as text", () => {
    assert.equal(render(hostile.script), "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n");
    assert.equal(render(hostile["img onerror"]), "<p>&lt;img src=x onerror=alert(1)&gt;</p>\n");
    assert.equal(render(hostile["javascript: link"]), "<p>[x](javascript:alert(1))</p>\n");
    assert.equal(render(hostile["a mark holding a script"]), "<p><mark>&lt;script&gt;alert(1)&lt;/script&gt;</mark></p>\n");
  });
});

describe("appendMarkdown", () => {
  test("without markdown-it loaded, the text is appended as it is, without its marks", () => {
    const appended = [];
    const node = { append: (...parts) => appended.push(...parts) };
    const saved = globalThis.markdownit;
    delete globalThis.markdownit;
    try {
      assert.equal(appendMarkdown(node, "a **<mark>b</mark>** <script>", { limit: 100 }), node);
    } finally {
      if (saved !== undefined) globalThis.markdownit = saved;
    }
    assert.deepEqual(appended, ["a **b** <script>"]);
  });
});
