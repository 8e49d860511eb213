/* haygate results view: an MCP Apps view (a View, in the extension's words) of one tool's ranked records.
 *
 * It speaks to its host with JSON-RPC over postMessage, as the MCP Apps extension defines it: `ui/initialize`
 * then `ui/notifications/initialized`; the host sends `ui/notifications/tool-input` and
 * `ui/notifications/tool-result`; the filters call the tool again with `tools/call` (the host forwards it to
 * the server), and "open" calls the app-only tool that returns the whole record.
 * Server data reaches the page as text nodes, and a result's Markdown (its excerpt, a record's documents) as
 * markdown.js renders it: HTML escaped, links checked, what it makes checked against an allowlist.
 * The page (haygate/server/apps/__init__.py) inlines the vendored markdown-it and the console's format.js and markdown.js
 * before this script, so the view reads values, formats numbers and renders Markdown as the console does; a
 * link opens through the host (`ui/open-link`), when it offers to.
 */

(() => {
  const CONFIG = JSON.parse(document.getElementById("haygate-view").textContent);
  const PROTOCOL_VERSION = "2026-01-26";
  const TITLE_KEYS = ["title", "name", "summary", "key"];
  const EXCERPT_KEYS = ["snippet", "excerpt", "text", "content", "summary", "description"];
  const EXCERPT_LIMIT = 600;

  /* ------------------------------------------------------------------ the bridge to the host */

  /** JSON-RPC 2.0 over postMessage with the parent window (the host, or its sandbox proxy). */
  const bridge = (() => {
    let nextId = 1;
    const pending = new Map();
    const handlers = new Map();
    const post = (message) => window.parent.postMessage({ jsonrpc: "2.0", ...message }, "*");

    window.addEventListener("message", (event) => {
      if (event.source !== window.parent) return; // only the host speaks to this view
      const message = event.data;
      if (!message || message.jsonrpc !== "2.0") return;
      if (message.method === undefined) {
        const waiting = pending.get(message.id);
        if (!waiting) return;
        pending.delete(message.id);
        if (message.error) waiting.reject(new Error(message.error.message || "the host refused the request"));
        else waiting.resolve(message.result);
        return;
      }
      const handler = handlers.get(message.method);
      if (message.id === undefined) {
        if (handler) handler(message.params || {});
        return;
      }
      if (!handler) return post({ id: message.id, error: { code: -32601, message: `method not found: ${message.method}` } });
      Promise.resolve()
        .then(() => handler(message.params || {}))
        .then(
          (result) => post({ id: message.id, result: result || {} }),
          (error) => post({ id: message.id, error: { code: -32603, message: String(error && error.message) } })
        );
    });

    return {
      request(method, params) {
        const id = nextId++;
        return new Promise((resolve, reject) => {
          pending.set(id, { resolve, reject });
          post({ id, method, params });
        });
      },
      notify(method, params) {
        post({ method, params });
      },
      on(method, handler) {
        handlers.set(method, handler);
      },
    };
  })();

  /* ------------------------------------------------------------------ helpers */

  function el(tag, props = {}, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props)) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "className") node.className = value;
      else if (key === "dataset") Object.assign(node.dataset, value);
      else if (key === "onclick") node.addEventListener("click", value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  /** What a tool result carries: its structured content, else the JSON of its text. */
  function structured(result) {
    if (isPlainObject(result.structuredContent)) return result.structuredContent;
    const text = (result.content || []).map((block) => block.text || "").join("");
    try {
      return JSON.parse(text);
    } catch {
      return { error: { message: text || "the tool returned nothing to show" } };
    }
  }

  /* ------------------------------------------------------------------ state and layout */

  const state = { arguments: {}, rows: [], busy: false, openLinks: false };
  const main = el("main", {});
  const header = el("header", {}, el("h1", {}, CONFIG.tool), el("span", { className: "count", role: "status" }));
  const filters = el("form", { className: "filters", "aria-label": "filters" });
  const status = el("p", { className: "message", role: "alert", hidden: true });
  const list = el("ol", { className: "results", "aria-label": "results" });
  const record = el("section", { className: "record", hidden: true, "aria-label": "record" });
  main.append(header, filters, status, list, record);
  document.body.append(main);

  function showMessage(text) {
    status.textContent = text || "";
    status.hidden = !text;
  }

  /* ------------------------------------------------------------------ filters */

  function filterControl(filter) {
    const id = `filter-${filter.name}`;
    const label = el("label", { for: id, title: filter.description || "" }, filter.name);
    let input;
    if (filter.kind === "choice") {
      input = el("select", { id, name: filter.name }, el("option", { value: "" }, "any"), filter.values.map((v) => el("option", { value: String(v) }, String(v))));
    } else if (filter.kind === "choices") {
      input = el(
        "span",
        { className: "choices", id, role: "group" },
        filter.values.map((v) => el("label", {}, el("input", { type: "checkbox", name: filter.name, value: String(v) }), String(v)))
      );
    } else {
      input = el("input", { id, name: filter.name, type: "search", placeholder: filter.required ? "required" : "any" });
    }
    return el("div", { className: "filter" }, label, input);
  }

  function fillFilters(args) {
    for (const filter of CONFIG.filters) {
      const value = args[filter.name];
      if (filter.kind === "choices") {
        const chosen = new Set((Array.isArray(value) ? value : []).map(String));
        for (const box of filters.querySelectorAll(`input[name="${filter.name}"]`)) box.checked = chosen.has(box.value);
      } else {
        filters.elements.namedItem(filter.name).value = present(value) ? String(value) : "";
      }
    }
  }

  function readFilters() {
    const args = { ...state.arguments };
    for (const filter of CONFIG.filters) {
      let value;
      if (filter.kind === "choices") {
        value = Array.from(filters.querySelectorAll(`input[name="${filter.name}"]:checked`), (box) => box.value);
        if (!value.length) value = undefined;
      } else {
        value = filters.elements.namedItem(filter.name).value.trim() || undefined;
      }
      if (value === undefined) delete args[filter.name];
      else args[filter.name] = value;
    }
    return args;
  }

  filters.append(...CONFIG.filters.map(filterControl), el("button", { type: "submit" }, "Search again"));
  filters.addEventListener("submit", async (event) => {
    event.preventDefault();
    const args = readFilters();
    setBusy(true);
    try {
      const result = await bridge.request("tools/call", { name: CONFIG.tool, arguments: args });
      state.arguments = args;
      showResult(result);
    } catch (error) {
      showMessage(error.message);
    } finally {
      setBusy(false);
    }
  });

  function setBusy(busy) {
    state.busy = busy;
    main.setAttribute("aria-busy", String(busy));
    for (const button of main.querySelectorAll("button")) button.disabled = busy;
  }

  /* ------------------------------------------------------------------ results */

  function provenanceLine(scores) {
    const dense = scores.dense_rank != null ? `dense #${scores.dense_rank}` : "dense —";
    const sparse = scores.sparse_rank != null ? `BM25 #${scores.sparse_rank}` : "BM25 —";
    const fused = `fused ${fmtNumber(scores.fused_score, 3)}`;
    const rerank = `rerank ${fmtNumber(scores.rerank_score, 3)}`;
    return [dense, sparse, fused, rerank].join(" · ");
  }

  /** A bar per retriever, longer for a better rank; "—" where it did not find the row. */
  function rankBar(label, source, rank, scale) {
    const fill = el("span", { className: "bar-fill" });
    fill.style.width = rank != null ? `${Math.max(6, 100 * (1 - (rank - 1) / scale))}%` : "0"; // none: no bar
    return el(
      "div",
      { className: `bar${rank != null ? "" : " missing"}`, dataset: { source }, title: rank != null ? `${label} rank ${rank}` : `${label} did not find this row` },
      el("span", { className: "bar-label" }, label),
      el("span", { className: "bar-track" }, fill),
      el("span", { className: "bar-rank" }, rank != null ? `#${rank}` : "—")
    );
  }

  function provenance(scores, scale) {
    if (!isPlainObject(scores)) return null;
    return el(
      "div",
      { className: "provenance" },
      el("div", { className: "provenance-line" }, provenanceLine(scores)),
      el("div", { className: "bars" }, rankBar("dense", "dense", scores.dense_rank, scale), rankBar("BM25", "sparse", scores.sparse_rank, scale))
    );
  }

  const SHOWN = new Set([...TITLE_KEYS, ...EXCERPT_KEYS, "path", "section_path", "scores", "id"]);
  const FIELDS_SHOWN = 6;

  /** The row's other short fields (a candidate's level and skills, an entity's type), as "name value". */
  function otherFields(row) {
    const shown = [];
    for (const [key, value] of Object.entries(row)) {
      if (SHOWN.has(key) || key === CONFIG.id_field || key === CONFIG.score_field || !present(value)) continue;
      const text = Array.isArray(value) && value.every((v) => typeof v !== "object") ? value.join(", ") : typeof value === "object" ? "" : String(value);
      if (text && text.length <= 80) shown.push(el("span", {}, el("span", { className: "field" }, key), " ", text));
      if (shown.length === FIELDS_SHOWN) break;
    }
    return shown.length ? el("div", { className: "fields" }, shown) : null;
  }

  function resultItem(row, scale) {
    const id = row[CONFIG.id_field];
    const title = asText(firstPresent(row, TITLE_KEYS)) || asText(id) || "(untitled)";
    const where = [row.path, row.section_path].filter(present).map(asText);
    const excerpt = asText(firstPresent(row, EXCERPT_KEYS));
    const open = el("button", { type: "button", className: "open", onclick: () => openRecord(id, title) }, "open");
    return el(
      "li",
      { className: "result", dataset: { id: asText(id) } },
      el("div", { className: "result-head" }, el("span", { className: "title" }, title), el("span", { className: "score", title: CONFIG.score_field }, fmtNumber(row[CONFIG.score_field])), open),
      where.length ? el("div", { className: "where" }, where.map((part, i) => el("span", { className: i ? "section" : "path" }, part))) : null,
      excerpt ? appendMarkdown(el("div", { className: "excerpt" }), excerpt, { limit: EXCERPT_LIMIT }) : null,
      otherFields(row),
      provenance(row.scores, scale)
    );
  }

  function showResult(result) {
    record.hidden = true;
    list.hidden = false;
    const data = structured(result);
    if (result.isError || isPlainObject(data.error)) {
      state.rows = [];
      list.replaceChildren();
      header.querySelector(".count").textContent = "";
      return showMessage(isPlainObject(data.error) ? data.error.message : "the tool call failed");
    }
    const rows = Array.isArray(data[CONFIG.list_key]) ? data[CONFIG.list_key].filter(isPlainObject) : [];
    state.rows = rows;
    const scale = Math.max(rows.length, ...rows.map((r) => (isPlainObject(r.scores) ? Math.max(r.scores.dense_rank || 0, r.scores.sparse_rank || 0) : 0)), 1);
    list.replaceChildren(...rows.map((row) => resultItem(row, scale)));
    header.querySelector(".count").textContent = `${rows.length} result${rows.length === 1 ? "" : "s"}`;
    const message = isPlainObject(data.metadata) ? data.metadata.message : undefined;
    showMessage(rows.length ? "" : asText(message) || "No results.");
  }

  /* ------------------------------------------------------------------ one whole record */

  async function openRecord(id, title) {
    setBusy(true);
    try {
      const result = await bridge.request("tools/call", { name: CONFIG.open_tool, arguments: { tool: CONFIG.tool, arguments: state.arguments, id } });
      const data = structured(result);
      if (result.isError || isPlainObject(data.error)) return showMessage(isPlainObject(data.error) ? data.error.message : "the record could not be opened");
      showMessage("");
      showRecord(data, title);
    } catch (error) {
      showMessage(error.message);
    } finally {
      setBusy(false);
    }
  }

  function documentItem(doc, matched) {
    const meta = isPlainObject(doc.meta) ? doc.meta : {};
    const heading = asText(meta.title || meta.doc_title || meta.name || doc.id);
    const where = [meta.path, meta.section_path].filter(present).map(asText).join(" · ");
    return el(
      "article",
      { className: `document${matched ? " matched" : ""}`, dataset: { id: asText(doc.id) } },
      el("h3", {}, heading, matched ? el("span", { className: "badge" }, "the result") : null),
      where ? el("div", { className: "where" }, where) : null,
      appendMarkdown(el("div", { className: "content" }), asText(doc.content)),
      el(
        "details",
        {},
        el("summary", {}, "metadata"),
        el("dl", {}, Object.entries(meta).map(([key, value]) => [el("dt", {}, key), el("dd", {}, asText(value))]))
      )
    );
  }

  function showRecord(data, title) {
    const documents = Array.isArray(data.documents) ? data.documents.filter(isPlainObject) : [];
    const back = el("button", { type: "button", className: "back", onclick: () => ((record.hidden = true), (list.hidden = false)) }, "← results");
    record.replaceChildren(
      el(
        "div",
        { className: "record-head" },
        back,
        el("h2", {}, title),
        el("span", { className: "where" }, `record ${asText(data.record_id)} in ${asText(data.collection)} · ${documents.length} document${documents.length === 1 ? "" : "s"}`)
      ),
      ...documents.map((doc) => documentItem(doc, doc.id === data.matched))
    );
    list.hidden = true;
    record.hidden = false;
    const matched = record.querySelector(".document.matched");
    if (matched && documents.length > 1) matched.scrollIntoView({ block: "start" });
  }

  /* ------------------------------------------------------------------ links */

  /** A link in a result opens through the host, which may open what the view's sandbox cannot; an address
   *  that is not the web's or mail's (a page's relative link) is not opened. */
  main.addEventListener("click", (event) => {
    const link = event.target instanceof Element ? event.target.closest(".md a[href]") : null;
    if (!link || !state.openLinks) return; // without the host's offer: the link as it is
    event.preventDefault();
    const href = link.getAttribute("href");
    let url = null;
    try {
      url = new URL(href);
    } catch {
      // a relative address: nothing to resolve it against here
    }
    if (!url || !["http:", "https:", "mailto:"].includes(url.protocol)) return showMessage(`not a link the host can open: ${href}`);
    bridge.request("ui/open-link", { url: url.href }).catch((error) => showMessage(`the host did not open the link: ${error.message}`));
  });

  /* ------------------------------------------------------------------ the host's context */

  function applyContext(context) {
    if (!isPlainObject(context)) return;
    if (context.theme === "dark" || context.theme === "light") document.documentElement.dataset.theme = context.theme;
    const variables = isPlainObject(context.styles) && isPlainObject(context.styles.variables) ? context.styles.variables : {};
    for (const [name, value] of Object.entries(variables)) {
      if (name.startsWith("--") && typeof value === "string") document.documentElement.style.setProperty(name, value);
    }
  }

  /** Hosts size the frame to the view: tell them its size whenever it changes. */
  function reportSize() {
    let last = "";
    const send = () => {
      const box = document.body.getBoundingClientRect();
      const size = { width: Math.ceil(box.width), height: Math.ceil(box.height) };
      const key = `${size.width}x${size.height}`;
      if (key === last) return;
      last = key;
      bridge.notify("ui/notifications/size-changed", size);
    };
    new ResizeObserver(send).observe(document.body);
    send();
  }

  bridge.on("ui/notifications/tool-input", (params) => {
    state.arguments = isPlainObject(params.arguments) ? params.arguments : {};
    fillFilters(state.arguments);
  });
  bridge.on("ui/notifications/tool-result", showResult);
  bridge.on("ui/notifications/tool-cancelled", (params) => showMessage(`cancelled: ${asText(params.reason)}`));
  bridge.on("ui/notifications/host-context-changed", applyContext);
  bridge.on("ui/resource-teardown", () => ({}));
  bridge.on("ping", () => ({}));

  bridge
    .request("ui/initialize", {
      appInfo: { name: "haygate results", version: CONFIG.version },
      appCapabilities: { availableDisplayModes: ["inline"] },
      protocolVersion: PROTOCOL_VERSION,
    })
    .then((initialized) => {
      state.openLinks = isPlainObject(initialized && initialized.hostCapabilities) && isPlainObject(initialized.hostCapabilities.openLinks);
      applyContext(initialized && initialized.hostContext);
      bridge.notify("ui/notifications/initialized", {});
      reportSize();
    })
    .catch((error) => showMessage(`the host did not start this view: ${error.message}`));
})();
