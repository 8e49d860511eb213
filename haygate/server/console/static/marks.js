/* The highlighting of an excerpt, shared by the console and the MCP Apps results view (which inlines this module:
 * it imports nothing). The server marks the query's words with <mark>; a source's own emphasis stays emphasis. */

const MARKUP = /<mark>([\s\S]*?)<\/mark>|\*\*([\s\S]+?)\*\*|<(b|strong)>([\s\S]*?)<\/\3>/gi;

/** The text cut into parts: {tag: "mark", text} for a match of the query (as the server marks it), {tag:
 *  "strong", text} for the source's own emphasis (**x**, <b>x</b>, <strong>x</strong>, never a hit), and {tag:
 *  null, text} for everything else, which stays plain text. */
export function markedParts(text) {
  const parts = [];
  let last = 0;
  for (const match of text.matchAll(MARKUP)) {
    if (match.index > last) parts.push({ tag: null, text: text.slice(last, match.index) });
    if (match[1] !== undefined) parts.push({ tag: "mark", text: match[1] });
    else parts.push({ tag: "strong", text: match[2] !== undefined ? match[2] : match[4] });
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push({ tag: null, text: text.slice(last) });
  return parts;
}

/** Appends text to node, its marks and emphasis as <mark> and <strong> elements and the rest as text nodes, so
 *  the server's markup can never inject HTML. */
export function appendHighlighted(node, text) {
  for (const part of markedParts(text)) {
    if (part.tag === null) {
      node.append(part.text);
      continue;
    }
    const element = node.ownerDocument.createElement(part.tag);
    element.append(part.text);
    node.append(element);
  }
  return node;
}
