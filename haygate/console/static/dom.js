/* The console's DOM helpers: finding, building and updating nodes. Server data reaches the page through
 * textContent and DOM nodes (never innerHTML), and `el` is how this script builds them; a result's Markdown
 * only through markdown.js's appendMarkdown. */

export const $ = (selector, root = document) => root.querySelector(selector);
export const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));

// Always set as attributes: their DOM properties are missing in some browsers or not plain strings.
const ATTRIBUTES = new Set(["role", "spellcheck"]);

/** Builds an element: el("td", {className: "num", title: "x"}, "text", otherNode). */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "dataset") Object.assign(node.dataset, value);
    else if (key in node && !key.includes("-") && !ATTRIBUTES.has(key)) node[key] = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

export function clear(node) {
  node.replaceChildren();
  return node;
}

/** Shows a message in an error/status element, or hides it when the message is empty. */
export function showMessage(node, message) {
  node.textContent = message || "";
  node.hidden = !message;
}

/** Sets a button's busy state; its label stays, the status node says what is going on. */
export function setBusy(button, statusNode, busy, text = "Loading…") {
  button.disabled = busy;
  button.setAttribute("aria-busy", String(busy));
  if (statusNode) statusNode.textContent = busy ? text : "";
}

/** A table body row spanning every column, for "Loading…" / "Nothing here" states. */
export function placeholderRow(table, text) {
  const columns = table.tHead ? table.tHead.rows[0].cells.length : 1;
  return el("tr", { className: "placeholder" }, el("td", { colSpan: columns }, text));
}

export async function copyText(text, button) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Clipboard API needs a secure context; fall back to a hidden textarea.
    const area = el("textarea", { className: "visually-hidden" }, text);
    document.body.append(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
  const label = button.textContent;
  button.textContent = "Copied";
  setTimeout(() => (button.textContent = label), 1200);
}
