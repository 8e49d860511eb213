/* A result's Markdown (its text, its snippet) as elements that can do nothing, shared by the console and the MCP
 * Apps results view. The view inlines this module (haygate/server/apps/__init__.py), so it imports nothing: it finds
 * markdown-it as `globalThis.markdownit`, which vendor/markdown-it.umd.min.js sets (the console's console.js
 * imports that file; the view inlines it first).
 *
 * markdown-it parses and renders, with HTML off (every tag in a text is escaped: it shows as the text it is),
 * no linkifying, and its own link validation (it refuses javascript:, vbscript:, file: and data: other than
 * images). Links open in a new tab, without an opener or a referrer; an image shows as its alt text (nothing is
 * fetched); a heading is bold text of the excerpt's size, not a heading of the page. The one markup kept is the
 * server's marking of the query's words, <mark>word</mark> (haygate/text/snippets.py): each pair becomes two
 * private-use characters before parsing, so a mark sits wherever its word does (in bold, in code, in a link's
 * text, in a list), and they become <mark> and </mark> again in the rendered text, never in an address or an
 * attribute. What joins the page is then checked against an allowlist of elements and attributes. */

const OPEN = "\uE000"; // the server's <mark>, while markdown-it reads the text
const CLOSE = "\uE001"; // its </mark>
const SENTINELS = /[\uE000\uE001]/g;
const MARKED = /<mark>([\s\S]*?)<\/mark>/gi; // a pair only: a lone <mark> stays text
const ALIGNED = /^text-align:(left|center|right)$/;
// A link's address, its spaces and control characters removed, that must never be followed.
const UNSAFE_ADDRESS = /^(javascript|vbscript|file|data):/i;

/** The elements markdown-it makes here (headings and images are rendered as p and span), with the attributes
 *  each may keep. Anything else is replaced by its text; any other attribute is dropped. */
export const ALLOWED = {
  a: ["href", "title", "target", "rel"],
  blockquote: [],
  br: [],
  code: ["class"],
  del: [],
  em: [],
  hr: [],
  li: [],
  mark: [],
  ol: ["start"],
  p: ["class"],
  pre: [],
  s: [],
  span: ["class"],
  strong: [],
  table: [],
  tbody: [],
  td: ["class"],
  th: ["class"],
  thead: [],
  tr: [],
  ul: [],
};

/** The text with the server's marks as the sentinels (and any sentinel of the text's own dropped), cut to
 *  `limit` characters, a mark cut in two closed, and "…" after. */
export function markedSource(text, limit = Infinity) {
  let source = String(text ?? "").replace(SENTINELS, "").replace(MARKED, `${OPEN}$1${CLOSE}`);
  if (source.length > limit) {
    source = source.slice(0, limit);
    if (source.lastIndexOf(OPEN) > source.lastIndexOf(CLOSE)) source += CLOSE;
    source += "…";
  }
  return source;
}

/** No sentinel in an attribute: a mark is for the text a reader sees. Table cells say their alignment with a
 *  class, as the view's policy refuses style attributes. */
function cleanToken(token) {
  if (token.attrs) {
    token.attrs = token.attrs.map(([name, value]) => [name, String(value).replace(SENTINELS, "")]);
    const style = token.attrGet("style");
    if (style !== null) {
      token.attrs = token.attrs.filter(([name]) => name !== "style");
      const aligned = ALIGNED.exec(style);
      if (aligned) token.attrSet("class", `md-align-${aligned[1]}`);
    }
  }
  if (token.info) token.info = token.info.replace(SENTINELS, "");
  if (token.children) token.children.forEach(cleanToken);
}

/** markdown-it as these pages use it, from its constructor. */
export function markdownRenderer(markdownit) {
  const md = markdownit({ html: false, linkify: false, typographer: false });
  const normalizeLink = md.normalizeLink;
  // Before markdown-it validates an address: a mark in it goes, so "java<mark>script</mark>:" is refused too.
  md.normalizeLink = (url) => normalizeLink(url.replace(SENTINELS, ""));
  md.core.ruler.push("haygate_clean_attributes", (state) => {
    state.tokens.forEach(cleanToken);
  });
  const rules = md.renderer.rules;
  rules.link_open = (tokens, index, options, env, self) => {
    tokens[index].attrSet("target", "_blank");
    tokens[index].attrSet("rel", "noopener noreferrer");
    return self.renderToken(tokens, index, options);
  };
  rules.image = (tokens, index, options, env, self) => `<span class="md-image">${self.renderInline(tokens[index].children || [], options, env)}</span>`;
  rules.heading_open = () => '<p class="md-heading">';
  rules.heading_close = () => "</p>\n";
  return md;
}

let configured = null; // {markdownit, md}: made once per page

function renderer(markdownit) {
  if (typeof markdownit !== "function") throw new Error("markdown-it is not loaded");
  if (!configured || configured.markdownit !== markdownit) configured = { markdownit, md: markdownRenderer(markdownit) };
  return configured.md;
}

/** The text rendered as HTML, its marks as <mark>: markdown-it's escaping and link validation, then the marks.
 *  `limit` cuts the text first (see markedSource). */
export function markdownHtml(text, { limit = Infinity, markdownit = globalThis.markdownit } = {}) {
  const html = renderer(markdownit).render(markedSource(text, limit));
  return html.replaceAll(OPEN, "<mark>").replaceAll(CLOSE, "</mark>");
}

/** Keeps, under `parent`, the allowed elements with their allowed attributes, and text; links to nothing
 *  unsafe. (markdown-it makes nothing else: this holds whatever it did.) */
function keepAllowed(parent) {
  for (const child of Array.from(parent.childNodes)) {
    if (child.nodeType === 3) continue; // text
    const allowed = child.nodeType === 1 ? ALLOWED[child.localName] : undefined;
    if (!allowed) {
      if (child.nodeType === 1) child.replaceWith(child.ownerDocument.createTextNode(child.textContent));
      else child.remove(); // a comment, a processing instruction
      continue;
    }
    for (const name of child.getAttributeNames()) if (!allowed.includes(name)) child.removeAttribute(name);
    const href = child.getAttribute("href");
    if (href !== null && UNSAFE_ADDRESS.test(href.replace(/[\u0000-\u0020\u007f-\u009f]/g, ""))) child.removeAttribute("href");
    keepAllowed(child);
  }
}

/** Appends the text's Markdown to `node` (a block: a div, a td, a section), its marks as <mark> elements, and
 *  returns the node, with the class md. The HTML is parsed in an inert template (nothing in it runs or loads)
 *  and checked before it joins the page. Without markdown-it, the text is appended as it is. */
export function appendMarkdown(node, text, options = {}) {
  const markdownit = options.markdownit || globalThis.markdownit;
  if (typeof markdownit !== "function") {
    node.append(markedSource(text, options.limit).replace(SENTINELS, ""));
    return node;
  }
  const template = node.ownerDocument.createElement("template");
  template.innerHTML = markdownHtml(text, { limit: options.limit, markdownit });
  keepAllowed(template.content);
  node.classList.add("md");
  node.append(template.content);
  return node;
}
