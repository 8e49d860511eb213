/* haygate console: one vanilla script, no build step.
 *
 * Layout of this file: small DOM and formatting helpers, the API client (token, errors, 401 banner),
 * the tabs, then one block per panel (Tools, Compare, Collections, Evaluations, Judge, Live) and the start-up.
 * Server data only ever reaches the page through textContent / DOM nodes, never through innerHTML.
 */
"use strict";

(() => {
  /* ------------------------------------------------------------------ helpers */

  const $ = (selector, root = document) => root.querySelector(selector);
  const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));

  // Always set as attributes: their DOM properties are missing in some browsers or not plain strings.
  const ATTRIBUTES = new Set(["role", "spellcheck"]);

  /** Builds an element: el("td", {className: "num", title: "x"}, "text", otherNode). */
  function el(tag, props = {}, ...children) {
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

  function clear(node) {
    node.replaceChildren();
    return node;
  }

  /** A field counts as present when it is set and not an empty string. */
  const present = (value) => value !== undefined && value !== null && value !== "";

  function firstPresent(row, keys) {
    for (const key of keys) if (row && present(row[key])) return row[key];
    return undefined;
  }

  function asText(value) {
    if (!present(value)) return "";
    return typeof value === "object" ? JSON.stringify(value) : String(value);
  }

  function fmtNumber(value, digits = 4) {
    if (typeof value !== "number" || !Number.isFinite(value)) return "—";
    if (Number.isInteger(value)) return String(value);
    return String(Number(value.toPrecision(digits)));
  }

  const fmtFixed = (value, digits = 4) => (typeof value === "number" ? value.toFixed(digits) : "—");
  const fmtMs = (value) => fmtFixed(value, 1);

  function fmtBytes(bytes) {
    if (typeof bytes !== "number") return "—";
    const units = ["B", "KB", "MB", "GB", "TB"];
    let size = bytes;
    let unit = 0;
    while (size >= 1024 && unit < units.length - 1) {
      size /= 1024;
      unit += 1;
    }
    return `${unit === 0 ? size : size.toFixed(1)} ${units[unit]}`;
  }

  function fmtDate(iso) {
    if (!iso) return "—";
    const date = new Date(iso);
    return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleString();
  }

  function fmtDuration(seconds) {
    if (typeof seconds !== "number") return "—";
    const s = Math.floor(seconds);
    const d = Math.floor(s / 86400);
    const h = Math.floor((s % 86400) / 3600);
    const m = Math.floor((s % 3600) / 60);
    if (d) return `${d} d ${h} h`;
    if (h) return `${h} h ${m} min`;
    if (m) return `${m} min ${s % 60} s`;
    return `${s} s`;
  }

  const pretty = (value) => JSON.stringify(value, null, 2);

  /** Shows a message in an error/status element, or hides it when the message is empty. */
  function showMessage(node, message) {
    node.textContent = message || "";
    node.hidden = !message;
  }

  /** Sets a button's busy state; its label stays, the status node says what is going on. */
  function setBusy(button, statusNode, busy, text = "Loading…") {
    button.disabled = busy;
    button.setAttribute("aria-busy", String(busy));
    if (statusNode) statusNode.textContent = busy ? text : "";
  }

  /** A table body row spanning every column, for "Loading…" / "Nothing here" states. */
  function placeholderRow(table, text) {
    const columns = table.tHead ? table.tHead.rows[0].cells.length : 1;
    return el("tr", { className: "placeholder" }, el("td", { colSpan: columns }, text));
  }

  /* ------------------------------------------------------------------ API client */

  const TOKEN_KEY = "haygate-token";

  function getToken() {
    try {
      return sessionStorage.getItem(TOKEN_KEY) || "";
    } catch {
      return ""; // storage can be disabled; the console still works without a token
    }
  }

  function setToken(token) {
    try {
      if (token) sessionStorage.setItem(TOKEN_KEY, token);
      else sessionStorage.removeItem(TOKEN_KEY);
    } catch {
      /* ignore: see getToken */
    }
  }

  function authHeaders(headers = {}) {
    const token = getToken();
    return token ? { ...headers, Authorization: `Bearer ${token}` } : { ...headers };
  }

  /** An API failure carrying the server's error envelope (or a synthetic one for network failures). */
  class ApiError extends Error {
    constructor(status, code, message, details) {
      super(message);
      this.status = status;
      this.code = code;
      this.details = details || {};
    }
  }

  function errorFromBody(status, body, fallbackText) {
    const envelope = body && typeof body === "object" ? body.error : null;
    if (envelope && typeof envelope === "object") {
      return new ApiError(status, envelope.code || `HTTP_${status}`, envelope.message || `HTTP ${status}`, envelope.details);
    }
    const text = (fallbackText || "").trim().slice(0, 200);
    return new ApiError(status, `HTTP_${status}`, `HTTP ${status}${text ? `: ${text}` : ""}`, {});
  }

  function noteStatus(status) {
    if (status === 401) $("#auth-banner").hidden = false;
  }

  function parseJson(text) {
    try {
      return text ? JSON.parse(text) : null;
    } catch {
      return undefined;
    }
  }

  /** fetch() with the token, JSON in and out; throws ApiError on any failure. */
  async function api(path, { method = "GET", body } = {}) {
    const init = { method, headers: authHeaders({ accept: "application/json" }) };
    if (body !== undefined) {
      init.headers["content-type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, init);
    } catch (error) {
      throw new ApiError(0, "NETWORK_ERROR", `Network error: the server did not answer (${error.message}).`, {});
    }
    noteStatus(response.status);
    const text = await response.text();
    const data = parseJson(text);
    if (!response.ok) throw errorFromBody(response.status, data, text);
    if (data === undefined) throw new ApiError(response.status, "BAD_RESPONSE", "The server answered with something that is not JSON.", {});
    return data;
  }

  /** fetch() of a binary resource (the evaluation plot) with the token, as a blob. */
  async function apiBlob(path) {
    let response;
    try {
      response = await fetch(path, { headers: authHeaders() });
    } catch (error) {
      throw new ApiError(0, "NETWORK_ERROR", `Network error: ${error.message}`, {});
    }
    noteStatus(response.status);
    if (!response.ok) {
      const text = await response.text();
      throw errorFromBody(response.status, parseJson(text), text);
    }
    return response.blob();
  }

  const enc = encodeURIComponent;

  /* ------------------------------------------------------------------ state */

  const state = {
    info: null,
    tools: [],
    pipelines: null,
    toolsByName: new Map(),
    activeTab: null,
    collection: null, // the collection being browsed
    documentsNext: null,
    plotUrl: null, // the current blob: URL, revoked when replaced
    reports: new Map(),
    liveTimer: null,
  };

  /* ------------------------------------------------------------------ tabs */

  const TABS = ["tools", "compare", "collections", "judge", "evaluations", "live"];
  const tabHooks = {}; // name -> {show(), hide(), canLeave()}, filled by each panel

  function tabFromHash() {
    const name = location.hash.replace(/^#/, "");
    return TABS.includes(name) ? name : "tools";
  }

  function selectTab(name) {
    if (state.activeTab === name) return;
    const previous = state.activeTab;
    if (previous && tabHooks[previous]?.canLeave && !tabHooks[previous].canLeave()) {
      // Stay: put the hash back without another hashchange, and the focus on the tab that stays open.
      history.replaceState(null, "", `#${previous}`);
      if (document.activeElement?.getAttribute("role") === "tab") $(`#tab-${previous}`).focus();
      return;
    }
    state.activeTab = name;
    for (const tab of TABS) {
      const button = $(`#tab-${tab}`);
      const selected = tab === name;
      button.setAttribute("aria-selected", String(selected));
      button.tabIndex = selected ? 0 : -1;
      $(`#panel-${tab}`).hidden = !selected;
    }
    if (previous && tabHooks[previous]?.hide) tabHooks[previous].hide();
    if (tabHooks[name]?.show) tabHooks[name].show();
  }

  function initTabs() {
    for (const button of $$('[role="tab"]')) {
      // The hash is the source of truth, so a link or the back button opens the same panel.
      button.addEventListener("click", () => {
        if (location.hash !== `#${button.dataset.tab}`) location.hash = button.dataset.tab;
        else selectTab(button.dataset.tab);
      });
      button.addEventListener("keydown", (event) => {
        const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
        if (!step) return;
        const index = (TABS.indexOf(button.dataset.tab) + step + TABS.length) % TABS.length;
        $(`#tab-${TABS[index]}`).focus();
        location.hash = TABS[index];
      });
    }
    window.addEventListener("hashchange", () => selectTab(tabFromHash()));
    selectTab(tabFromHash());
  }

  /* ------------------------------------------------------------------ shared: results and errors */

  const TITLE_KEYS = ["title", "name", "summary", "key", "candidate_id", "id"];
  const EXCERPT_KEYS = ["snippet", "excerpt", "text", "content", "summary", "description"];
  const SCORE_KEYS = ["score", "match_score"];
  const ROW_ID_KEYS = ["id", "key", "candidate_id", "entity_id"];
  const EXCERPT_LIMIT = 600;

  const isPlainObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

  /** The result's ranked rows: "results" when it is a list, else the first array of objects. */
  function resultRows(result) {
    if (!isPlainObject(result)) return [];
    if (Array.isArray(result.results)) return result.results;
    const arrays = Object.values(result).filter(Array.isArray);
    return arrays.find((list) => list.length && list.every(isPlainObject)) || arrays[0] || [];
  }

  const rowTitle = (row) => asText(firstPresent(row, TITLE_KEYS)) || "(untitled)";
  const rowKey = (row) => asText(firstPresent(row, ROW_ID_KEYS)) || rowTitle(row);

  /** Appends text to node: <mark>x</mark> (a match of the query, as the server marks it) becomes a <mark>;
   *  the source's own emphasis, **x**, <b>x</b> and <strong>x</strong>, stays emphasis (<strong>), never a hit.
   *  Everything else stays plain text nodes, so the server's markup can never inject HTML. */
  function appendHighlighted(node, text) {
    const pattern = /<mark>([\s\S]*?)<\/mark>|\*\*([\s\S]+?)\*\*|<(b|strong)>([\s\S]*?)<\/\3>/gi;
    let last = 0;
    for (const match of text.matchAll(pattern)) {
      if (match.index > last) node.append(text.slice(last, match.index));
      if (match[1] !== undefined) node.append(el("mark", {}, match[1]));
      else node.append(el("strong", {}, match[2] !== undefined ? match[2] : match[4]));
      last = match.index + match[0].length;
    }
    if (last < text.length) node.append(text.slice(last));
    return node;
  }

  function clip(text, limit) {
    return text.length > limit ? `${text.slice(0, limit)}…` : text;
  }

  /** The field problems of an error envelope: details.errors[], or a single details.field. */
  function fieldProblems(error) {
    const details = error.details || {};
    if (Array.isArray(details.errors)) {
      return details.errors.map((item) => ({ field: String(item.field ?? ""), message: item.message || item.msg || error.message, location: item.location }));
    }
    if (present(details.field)) return [{ field: String(details.field), message: details.message || error.message }];
    return [];
  }

  /* ------------------------------------------------------------------ Tools panel: form from schema */

  /** The JSON-schema type of a property, ignoring "null", plus whether null was allowed. */
  function propertyType(prop) {
    let branch = prop;
    if (!prop.type && Array.isArray(prop.anyOf)) {
      // pydantic-style Optional[X]: take the first non-null branch
      branch = prop.anyOf.find((item) => item.type !== "null") || {};
    }
    const types = Array.isArray(branch.type) ? branch.type : branch.type ? [branch.type] : [];
    const nullable = (Array.isArray(prop.type) && prop.type.includes("null")) || (Array.isArray(prop.anyOf) && prop.anyOf.some((item) => item.type === "null"));
    const type = types.find((t) => t !== "null") || (prop.enum ? "string" : branch.properties ? "object" : "string");
    return { type, nullable, schema: { ...prop, ...branch } };
  }

  /** "1–50, default 10" style summary of a property's bounds. */
  function boundsText(prop, type) {
    const parts = [];
    const range = (low, high, unit) => {
      if (present(low) && present(high)) parts.push(`${low}–${high}${unit}`);
      else if (present(low)) parts.push(`≥ ${low}${unit}`);
      else if (present(high)) parts.push(`≤ ${high}${unit}`);
    };
    if (type === "integer" || type === "number") {
      range(prop.minimum ?? prop.exclusiveMinimum, prop.maximum ?? prop.exclusiveMaximum, "");
    } else if (type === "string") range(prop.minLength, prop.maxLength, " characters");
    else if (type === "array") range(prop.minItems, prop.maxItems, " items");
    if (prop.default !== undefined && prop.default !== null) parts.push(`default ${asText(prop.default)}`);
    return parts.join(", ");
  }

  /** A client-side problem with one field (only malformed JSON: bounds are left to the server). */
  class FieldError extends Error {
    constructor(field, message) {
      super(message);
      this.field = field;
    }
  }

  /** Options carry the enum value as text; this maps it back to the typed value (5, not "5"). */
  const enumFromText = (values, text) => values.find((value) => String(value) === text);

  /** Describes one form field: its control plus how to read and fill it. */
  function buildControl(name, prop, required) {
    const { type, schema } = propertyType(prop);
    const id = `param-${name}`;
    const enumValues = Array.isArray(schema.enum) ? schema.enum.filter((value) => value !== null) : null; // null = "—"
    const itemEnum = schema.items && schema.items.enum;
    const example = Array.isArray(schema.examples) && present(schema.examples[0]) ? `e.g. ${asText(schema.examples[0])}` : "";
    const placeholder = present(schema.default) ? asText(schema.default) : example;

    if (enumValues) {
      const control = el("select", { id, name });
      if (!required) control.append(el("option", { value: "" }, "—"));
      for (const value of enumValues) control.append(el("option", { value: String(value) }, String(value)));
      return {
        control,
        read: () => (control.value === "" ? undefined : enumFromText(enumValues, control.value)),
        fill: (value) => {
          const known = enumValues.includes(value);
          control.value = known ? String(value) : required ? String(enumValues[0]) : "";
        },
      };
    }
    if (type === "boolean") {
      if (required) {
        const control = el("input", { id, name, type: "checkbox" });
        return { control, read: () => control.checked, fill: (value) => (control.checked = value === true) };
      }
      const control = el("select", { id, name }, el("option", { value: "" }, "—"), el("option", { value: "true" }, "true"), el("option", { value: "false" }, "false"));
      return {
        control,
        read: () => (control.value === "" ? undefined : control.value === "true"),
        fill: (value) => (control.value = value === true ? "true" : value === false ? "false" : ""),
      };
    }
    if (type === "integer" || type === "number") {
      const control = el("input", { id, name, type: "number", step: type === "integer" ? "1" : "any", placeholder, min: schema.minimum, max: schema.maximum });
      return {
        control,
        // An unparsable number is sent as typed, so the server's validation message is what shows.
        read: () => (control.value.trim() === "" ? undefined : Number.isNaN(Number(control.value)) ? control.value : Number(control.value)),
        fill: (value) => (control.value = present(value) ? String(value) : ""),
      };
    }
    if (type === "array" && Array.isArray(itemEnum)) {
      const control = el("select", { id, name, multiple: true, size: Math.min(Math.max(itemEnum.length, 2), 6) });
      for (const value of itemEnum) control.append(el("option", { value: String(value) }, String(value)));
      return {
        control,
        read: () => {
          const chosen = Array.from(control.selectedOptions, (option) => enumFromText(itemEnum, option.value));
          return chosen.length || required ? chosen : undefined;
        },
        fill: (value) => {
          const wanted = Array.isArray(value) ? value : [];
          for (const option of control.options) option.selected = wanted.some((v) => String(v) === option.value);
        },
      };
    }
    if (type === "array" && !isPlainObject(schema.items?.properties)) {
      const itemType = propertyType(schema.items || {}).type;
      const numeric = itemType === "integer" || itemType === "number";
      const control = el("input", { id, name, type: "text", placeholder: placeholder || "comma-separated values" });
      return {
        control,
        read: () => {
          const values = control.value.split(",").map((part) => part.trim()).filter(Boolean);
          if (!values.length) return required ? [] : undefined;
          return numeric ? values.map((v) => (Number.isNaN(Number(v)) ? v : Number(v))) : values;
        },
        fill: (value) => (control.value = Array.isArray(value) ? value.map(asText).join(", ") : asText(value)),
      };
    }
    if (type === "object" || type === "array") {
      const control = el("textarea", { id, name, rows: 3, spellcheck: "false", placeholder: placeholder || "JSON" });
      return {
        control,
        read: () => {
          if (!control.value.trim()) return undefined;
          try {
            return JSON.parse(control.value);
          } catch {
            throw new FieldError(name, "Not valid JSON.");
          }
        },
        fill: (value) => (control.value = present(value) ? pretty(value) : ""),
      };
    }
    const control = el("input", { id, name, type: "text", placeholder });
    return {
      control,
      read: () => (control.value === "" ? undefined : control.value),
      fill: (value) => (control.value = present(value) ? asText(value) : ""),
    };
  }

  const toolForm = { tool: null, fields: new Map() }; // name -> {read, fill, wrapper}

  function buildToolForm(tool) {
    const schema = tool.input_schema || {};
    const properties = schema.properties || {};
    const requiredNames = new Set(schema.required || []);
    const container = clear($("#tool-fields"));
    toolForm.tool = tool;
    toolForm.fields = new Map();
    for (const [name, prop] of Object.entries(properties)) {
      const { type, nullable, schema: merged } = propertyType(prop);
      const required = requiredNames.has(name) && !nullable; // nullable means optional
      const field = buildControl(name, prop, required);
      const helpId = `help-${name}`;
      const bounds = boundsText(merged, type);
      const label = el("label", { htmlFor: field.control.id }, el("span", { className: "param-name" }, name), required ? [" ", el("span", { className: "required" }, "required")] : null);
      const help = el("div", { id: helpId, className: "help" }, merged.description ? el("span", {}, merged.description) : null, bounds ? el("span", { className: "bounds" }, bounds) : null);
      field.control.setAttribute("aria-describedby", helpId);
      if (required) field.control.setAttribute("aria-required", "true");
      const wrapper = el("div", { className: "field", dataset: { param: name } }, label, field.control, help);
      container.append(wrapper);
      toolForm.fields.set(name, { ...field, wrapper });
    }
    if (!toolForm.fields.size) container.append(el("p", { className: "muted" }, "This tool takes no arguments."));
  }

  function fillToolForm(example) {
    for (const [name, field] of toolForm.fields) field.fill(example ? example[name] : undefined);
  }

  /** The arguments to send: optional fields left empty are omitted. */
  function readToolForm() {
    const args = {};
    for (const [name, field] of toolForm.fields) {
      const value = field.read();
      if (value !== undefined) args[name] = value;
    }
    return args;
  }

  function renderExamples(tool) {
    const box = clear($("#tool-examples"));
    (tool.examples || []).forEach((example, index) => {
      const button = el("button", { type: "button", className: "example", title: pretty(example) }, `Example ${index + 1}`);
      button.addEventListener("click", () => fillToolForm(example));
      box.append(button);
    });
  }

  function selectTool(name) {
    const tool = state.toolsByName.get(name);
    if (!tool) return;
    $("#tool-select").value = name;
    $("#tool-description").textContent = tool.description || "";
    buildToolForm(tool);
    renderExamples(tool);
    fillToolForm((tool.examples || [])[0]);
    clearCallErrors();
  }

  function clearCallErrors() {
    showMessage($("#call-error"), "");
    $$("#tool-form .field-error").forEach((node) => node.remove());
    $$('#tool-form [aria-invalid="true"]').forEach((node) => node.removeAttribute("aria-invalid"));
  }

  /** Puts each field problem beside its field; problems naming no field go into the main alert. */
  function showCallError(error) {
    const unplaced = [];
    for (const problem of fieldProblems(error)) {
      const name = problem.field.split(".")[0];
      const field = toolForm.fields.get(name);
      if (!field) {
        unplaced.push(problem.field ? `${problem.field}: ${problem.message}` : problem.message);
        continue;
      }
      field.control.setAttribute("aria-invalid", "true");
      const where = problem.location && problem.location !== name ? `${problem.location}: ` : "";
      field.wrapper.append(el("div", { className: "field-error", dataset: { for: name }, role: "alert" }, `${where}${problem.message}`));
    }
    const box = $("#call-error");
    box.dataset.code = error.code || "";
    showMessage(box, [error.message, ...unplaced.filter((text) => text !== error.message)].join("\n"));
  }

  /* ------------------------------------------------------------------ Tools panel: results */

  const shellQuote = (text) => `'${text.replace(/'/g, `'\\''`)}'`;

  function renderSnippets(name, args) {
    const headers = ["-H 'content-type: application/json'"];
    // Double quotes so that the shell expands $HAYGATE_TOKEN.
    if (getToken()) headers.push('-H "Authorization: Bearer $HAYGATE_TOKEN"');
    $("#curl").textContent = `curl -s ${location.origin}/api/tools/${enc(name)} ${headers.join(" ")} -d ${shellQuote(JSON.stringify(args))}`;
    $("#mcp-arguments").textContent = pretty({ name, arguments: args });
  }

  /** The largest rank any source gave, so bars can be scaled against the same length. */
  function maxRank(provenance, rowCount) {
    let max = rowCount;
    for (const entry of provenance || []) {
      if (entry) max = Math.max(max, entry.dense_rank || 0, entry.sparse_rank || 0);
    }
    return Math.max(max, 1);
  }

  function provenanceLine(entry) {
    const dense = entry.dense_rank != null ? `dense #${entry.dense_rank}${entry.dense_score != null ? ` (${fmtNumber(entry.dense_score, 2)})` : ""}` : "dense —";
    const sparse = entry.sparse_rank != null ? `BM25 #${entry.sparse_rank}` : "BM25 —";
    const fused = `fused ${entry.fused_score != null ? fmtNumber(entry.fused_score, 3) : "—"}`;
    const rerank = `rerank ${entry.rerank_score != null ? fmtNumber(entry.rerank_score, 3) : "—"}`;
    return [dense, sparse, fused, rerank].join(" · ");
  }

  /** One horizontal bar: longer for a better rank; "—" when the source did not find the row. */
  function rankBar(label, source, rank, scale) {
    const fill = el("span", { className: "bar-fill" });
    if (rank != null) fill.style.width = `${Math.max(6, 100 * (1 - (rank - 1) / scale))}%`;
    const found = rank != null;
    return el(
      "div",
      { className: `prov-bar${found ? "" : " missing"}`, dataset: { source }, title: found ? `${label} rank ${rank}` : `${label} did not find this row` },
      el("span", { className: "prov-label" }, label),
      el("span", { className: "bar-track" }, fill),
      el("span", { className: "rank-badge" }, found ? `#${rank}` : "—")
    );
  }

  function renderProvenance(entry, scale) {
    if (!entry) return el("div", { className: "provenance missing" }, el("div", { className: "prov-line" }, "no provenance recorded for this row"));
    return el(
      "div",
      { className: "provenance" },
      el("div", { className: "prov-line" }, provenanceLine(entry)),
      el("div", { className: "prov-bars" }, rankBar("dense", "dense", entry.dense_rank, scale), rankBar("BM25", "sparse", entry.sparse_rank, scale))
    );
  }

  function renderResultRow(row, entry, scale) {
    const score = firstPresent(row, SCORE_KEYS);
    const excerpt = asText(firstPresent(row, EXCERPT_KEYS));
    const id = asText(firstPresent(row, ROW_ID_KEYS));
    return el(
      "li",
      { className: "result" },
      el("div", { className: "result-head" }, el("span", { className: "result-title" }, rowTitle(row)), el("span", { className: "result-score", title: "score" }, score !== undefined ? fmtNumber(Number(score)) : "—")),
      id && id !== rowTitle(row) ? el("div", { className: "result-id" }, id) : null,
      excerpt ? appendHighlighted(el("p", { className: "result-excerpt" }), clip(excerpt, EXCERPT_LIMIT)) : null,
      renderProvenance(entry, scale)
    );
  }

  function renderCallResponse(data) {
    const result = data.result;
    const rows = resultRows(result);
    const provenance = Array.isArray(data.provenance) ? data.provenance : [];
    const scale = maxRank(provenance, rows.length);
    const list = clear($("#results"));
    rows.forEach((row, index) => list.append(isPlainObject(row) ? renderResultRow(row, provenance[index], scale) : el("li", { className: "result" }, asText(row))));
    if (!rows.length) list.append(el("li", { className: "empty" }, "No results."));
    const message = isPlainObject(result) && isPlainObject(result.metadata) ? result.metadata.message : undefined;
    showMessage($("#result-message"), present(message) ? asText(message) : "");
    $("#call-meta").textContent = `${rows.length} row${rows.length === 1 ? "" : "s"} in ${fmtMs(data.elapsed_ms)} ms · pipeline ${data.pipeline || "—"}`;
    $("#raw-result").textContent = pretty(result);
  }

  async function callTool(event) {
    event.preventDefault();
    const tool = toolForm.tool;
    if (!tool) return;
    clearCallErrors();
    let args;
    try {
      args = readToolForm();
    } catch (error) {
      if (!(error instanceof FieldError)) throw error;
      showCallError(new ApiError(0, "INVALID_JSON", `${error.field}: ${error.message}`, { field: error.field, message: error.message }));
      return;
    }
    renderSnippets(tool.name, args);
    const button = $("#call-button");
    setBusy(button, $("#call-status"), true, "Calling…");
    try {
      renderCallResponse(await api("/api/console/call", { method: "POST", body: { tool: tool.name, arguments: args, pipeline: null } }));
    } catch (error) {
      showCallError(error);
      clear($("#results"));
      showMessage($("#result-message"), "");
      $("#call-meta").textContent = `Call failed (${error.code}).`;
      $("#raw-result").textContent = error.status ? pretty({ error: { code: error.code, message: error.message, details: error.details } }) : "—";
    } finally {
      setBusy(button, $("#call-status"), false);
    }
  }

  async function copyText(text, button) {
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

  function initToolsPanel() {
    $("#tool-select").addEventListener("change", (event) => selectTool(event.target.value));
    $("#tool-form").addEventListener("submit", callTool);
    for (const button of $$("button.copy")) {
      button.addEventListener("click", () => copyText($(`#${button.dataset.copy}`).textContent, button));
    }
  }

  function renderToolList() {
    const fill = (select) => {
      const previous = select.value;
      clear(select);
      for (const tool of state.tools) select.append(el("option", { value: tool.name }, tool.name));
      if (!state.tools.length) select.append(el("option", { value: "" }, "No tools"));
      if (state.toolsByName.has(previous)) select.value = previous;
    };
    const compareBefore = $("#compare-tool").value;
    fill($("#tool-select"));
    fill($("#compare-tool"));
    renderJudgeTools();
    const first = $("#tool-select").value;
    if (first && (!toolForm.tool || toolForm.tool.name !== first)) selectTool(first);
    // Reloading the list (after a new token) keeps what the user typed for the same tool.
    if ($("#compare-tool").value !== compareBefore) updateCompareDefaults();
  }

  /* ------------------------------------------------------------------ Compare panel */

  const QUERY_KEYS = ["query", "text", "keywords", "topic"];

  /** The tool's query-like argument: the first string property among QUERY_KEYS. */
  function queryArgument(tool) {
    const properties = tool?.input_schema?.properties || {};
    return QUERY_KEYS.find((key) => properties[key] && propertyType(properties[key]).type === "string");
  }

  /** The first example's required arguments, with the query-like one replaced by the typed text. */
  function compareArguments(tool, query) {
    const schema = tool.input_schema || {};
    const example = (tool.examples || [])[0] || {};
    const args = {};
    for (const name of schema.required || []) if (example[name] !== undefined) args[name] = example[name];
    const queryKey = queryArgument(tool);
    if (queryKey && query.trim()) args[queryKey] = query;
    return args;
  }

  /** Preselects a pipeline named after the tool, preferring a variant to the tool's own file. */
  function preferredPipeline(toolName) {
    const matches = (state.pipelines || []).filter((path) => path.includes(toolName));
    return matches.find((path) => path !== `tools/${toolName}.yaml`) || matches[0] || "";
  }

  function updateCompareDefaults() {
    const tool = state.toolsByName.get($("#compare-tool").value);
    if (!tool) return;
    const queryKey = queryArgument(tool);
    const example = (tool.examples || [])[0] || {};
    const input = $("#compare-query");
    input.value = queryKey && present(example[queryKey]) ? asText(example[queryKey]) : "";
    input.disabled = !queryKey;
    $("#compare-hint").textContent = queryKey
      ? `Sent as “${queryKey}”, with the first example's other required arguments.`
      : "This tool has no query-like argument; its first example's required arguments are sent.";
    if (state.pipelines) $("#compare-pipeline").value = preferredPipeline(tool.name);
  }

  async function loadPipelines() {
    if (state.pipelines) return;
    const select = $("#compare-pipeline");
    try {
      const data = await api("/api/console/pipelines");
      state.pipelines = Array.isArray(data.pipelines) ? data.pipelines : [];
      clear(select);
      select.append(el("option", { value: "" }, "— choose a pipeline —"));
      for (const path of state.pipelines) select.append(el("option", { value: path }, path));
      updateCompareDefaults();
    } catch (error) {
      clear(select).append(el("option", { value: "" }, "Could not load pipelines"));
      showMessage($("#compare-error"), `Pipelines: ${error.message}`);
    }
  }

  function compareErrorText(label, error) {
    const problems = fieldProblems(error).map((p) => `${p.field || "arguments"}: ${p.message}`);
    return [`${label}: ${error.message}`, ...problems.filter((text) => !text.endsWith(`: ${error.message}`))].join("\n");
  }

  function compareItem(row) {
    const key = rowKey(row);
    return el("li", { dataset: { key } }, el("span", { className: "compare-title" }, rowTitle(row)), el("span", { className: "compare-id" }, key));
  }

  /** Renders both lists; the right one marks rank changes against the left, the left marks rows that left. */
  function renderComparison(leftRows, rightRows) {
    const leftKeys = leftRows.map(rowKey);
    const rightKeys = rightRows.map(rowKey);
    const left = clear($("#compare-left"));
    const right = clear($("#compare-right"));
    leftRows.forEach((row, index) => {
      const item = compareItem(row);
      if (!rightKeys.includes(leftKeys[index])) item.append(el("span", { className: "rank-change gone", title: "not in the pipeline's list" }, "gone"));
      left.append(item);
    });
    rightRows.forEach((row, index) => {
      const item = compareItem(row);
      const before = leftKeys.indexOf(rightKeys[index]);
      let change = "new";
      let kind = "new";
      if (before >= 0) {
        const moved = before - index; // positive: moved up
        change = moved > 0 ? `▲${moved}` : moved < 0 ? `▼${-moved}` : "=";
        kind = moved > 0 ? "up" : moved < 0 ? "down" : "same";
      }
      item.append(el("span", { className: `rank-change ${kind}`, title: before >= 0 ? `rank ${before + 1} as served` : "not in the served list" }, change));
      right.append(item);
    });
    if (!leftRows.length) left.append(el("li", { className: "empty" }, "No results."));
    if (!rightRows.length) right.append(el("li", { className: "empty" }, "No results."));
  }

  async function runComparison(event) {
    event.preventDefault();
    const tool = state.toolsByName.get($("#compare-tool").value);
    const pipeline = $("#compare-pipeline").value;
    showMessage($("#compare-error"), "");
    if (!tool) return showMessage($("#compare-error"), "Choose a tool.");
    if (!pipeline) return showMessage($("#compare-error"), "Choose a pipeline to compare with.");
    const args = compareArguments(tool, $("#compare-query").value);
    const call = (which) => api("/api/console/call", { method: "POST", body: { tool: tool.name, arguments: args, pipeline: which } });
    const button = $("#compare-run");
    setBusy(button, $("#compare-status"), true, "Comparing…");
    clear($("#compare-left"));
    clear($("#compare-right"));
    try {
      const [served, variant] = await Promise.allSettled([call(null), call(pipeline)]);
      const errors = [];
      const sides = [
        [served, "#compare-left-meta", "As served"],
        [variant, "#compare-right-meta", pipeline],
      ];
      for (const [outcome, metaId, label] of sides) {
        if (outcome.status === "fulfilled") $(metaId).textContent = `${outcome.value.pipeline || label} · ${fmtMs(outcome.value.elapsed_ms)} ms`;
        else {
          $(metaId).textContent = `${label} · failed`;
          errors.push(compareErrorText(label, outcome.reason));
        }
      }
      showMessage($("#compare-error"), errors.join("\n"));
      const rows = (outcome) => (outcome.status === "fulfilled" ? resultRows(outcome.value.result).filter(isPlainObject) : []);
      renderComparison(rows(served), rows(variant));
    } finally {
      setBusy(button, $("#compare-status"), false);
    }
  }

  function initComparePanel() {
    $("#compare-tool").addEventListener("change", updateCompareDefaults);
    $("#compare-form").addEventListener("submit", runComparison);
    tabHooks.compare = { show: loadPipelines };
  }

  /* ------------------------------------------------------------------ Collections panel */

  async function loadCollections() {
    const table = $("#collections");
    const body = table.tBodies[0];
    showMessage($("#collections-error"), "");
    if (!body.rows.length || body.rows[0].classList.contains("placeholder")) clear(body).append(placeholderRow(table, "Loading…"));
    try {
      const health = await api("/health?verbose=1");
      renderCollections(isPlainObject(health.collections) ? health.collections : {});
    } catch (error) {
      clear(body).append(placeholderRow(table, "Could not load the collections."));
      showMessage($("#collections-error"), error.message);
    }
  }

  function renderCollections(collections) {
    const table = $("#collections");
    const body = clear(table.tBodies[0]);
    const names = Object.keys(collections).sort();
    for (const name of names) {
      const entry = collections[name] || {};
      const row = el("tr", { dataset: { collection: name }, className: name === state.collection ? "selected" : "" });
      row.append(el("th", { scope: "row" }, name));
      if (entry.error) {
        row.append(el("td", { colSpan: 3, className: "error-text" }, entry.error));
      } else {
        row.append(el("td", { className: "num" }, fmtNumber(entry.documents)), el("td", { className: "num" }, fmtBytes(entry.disk_bytes)), el("td", {}, fmtDate(entry.last_write)));
      }
      const browse = el("button", { type: "button", className: "button-light browse" }, "Browse");
      row.append(el("td", { className: "actions-cell" }, browse));
      row.addEventListener("click", () => browseCollection(name));
      body.append(row);
    }
    if (!names.length) body.append(placeholderRow(table, "No collections."));
    const select = $("#upload-collection");
    const chosen = select.value || state.collection;
    clear(select);
    for (const name of names) select.append(el("option", { value: name }, name));
    if (names.includes(chosen)) select.value = chosen;
  }

  function browseCollection(name) {
    state.collection = name;
    for (const row of $("#collections").tBodies[0].rows) row.classList.toggle("selected", row.dataset.collection === name);
    // Browsing a collection also makes it the target of uploads, deletes and record lookups.
    const target = $("#upload-collection");
    if (Array.from(target.options).some((option) => option.value === name)) target.value = name;
    $("#documents-heading").textContent = `Documents in ${name}`;
    $("#record-view").hidden = true;
    loadDocuments(true);
  }

  function metaSummary(meta) {
    if (!isPlainObject(meta)) return "—";
    const keys = Object.keys(meta);
    return keys.length ? keys.join(", ") : "—";
  }

  function documentRow(doc) {
    const recordCell = el("td", {});
    if (present(doc.record_id)) {
      const link = el("button", { type: "button", className: "link" }, asText(doc.record_id));
      link.addEventListener("click", () => openRecord(asText(doc.record_id)));
      recordCell.append(link);
    } else recordCell.append("—");
    return el(
      "tr",
      {},
      el("td", { className: "mono" }, asText(doc.id)),
      recordCell,
      el("td", { className: "excerpt" }, clip(asText(doc.content), 200)),
      el("td", { className: "meta", title: isPlainObject(doc.meta) ? pretty(doc.meta) : "" }, metaSummary(doc.meta))
    );
  }

  async function loadDocuments(reset) {
    const name = state.collection;
    if (!name) return;
    const table = $("#documents");
    const body = table.tBodies[0];
    const more = $("#more-documents");
    showMessage($("#documents-error"), "");
    if (reset) {
      state.documentsNext = null;
      clear(body).append(placeholderRow(table, "Loading…"));
    }
    setBusy(more, $("#documents-status"), true);
    const after = reset ? "" : `&after=${enc(state.documentsNext)}`;
    try {
      const page = await api(`/api/console/collections/${enc(name)}/documents?limit=20${after}`);
      if (name !== state.collection) return; // another collection was chosen meanwhile
      if (reset) clear(body);
      for (const doc of page.documents || []) body.append(documentRow(doc));
      if (!body.rows.length) body.append(placeholderRow(table, "This collection is empty."));
      state.documentsNext = page.next || null;
      const shown = body.querySelectorAll("tr:not(.placeholder)").length;
      $("#documents-status").textContent = `Showing ${shown} of ${fmtNumber(page.total)} documents.`;
    } catch (error) {
      if (reset) clear(body);
      showMessage($("#documents-error"), error.message);
      $("#documents-status").textContent = "";
    } finally {
      more.disabled = false;
      more.setAttribute("aria-busy", "false");
      more.hidden = !state.documentsNext;
    }
  }

  async function openRecord(recordId) {
    const collection = state.collection || $("#upload-collection").value;
    const view = $("#record-view");
    view.hidden = false;
    if (!collection) return void clear(view).append(el("p", { className: "error-text" }, "Choose a collection first."));
    if (!recordId) return void clear(view).append(el("p", { className: "error-text" }, "Enter a record id."));
    clear(view).append(el("p", { className: "muted" }, `Loading record ${recordId}…`));
    try {
      const data = await api(`/api/console/collections/${enc(collection)}/records/${enc(recordId)}`);
      const docs = data.documents || [];
      clear(view).append(el("h3", {}, `Record ${recordId} in ${collection} · ${docs.length} document${docs.length === 1 ? "" : "s"}`));
      for (const doc of docs) {
        view.append(
          el(
            "article",
            { className: "record-doc" },
            el("h4", { className: "mono" }, asText(doc.id)),
            el("pre", { className: "code content" }, asText(doc.content)),
            el("pre", { className: "code" }, pretty(doc.meta ?? {}))
          )
        );
      }
    } catch (error) {
      clear(view).append(el("p", { className: "error-text", role: "alert" }, error.message));
    }
    view.scrollIntoView({ block: "nearest" });
  }

  /** The content type the server expects for a file, by its extension. */
  function uploadContentType(filename) {
    const ext = filename.toLowerCase().split(".").pop();
    return { jsonl: "application/jsonl", ndjson: "application/jsonl", json: "application/json", csv: "text/csv", md: "text/markdown", markdown: "text/markdown" }[ext];
  }

  /** PUTs one file with XMLHttpRequest (fetch has no upload progress); resolves with the report. */
  function uploadFile(collection, file, onProgress) {
    return new Promise((resolve, reject) => {
      const type = uploadContentType(file.name);
      const query = type === "text/markdown" ? `?filename=${enc(file.name)}` : "";
      const xhr = new XMLHttpRequest();
      xhr.open("PUT", `/api/collections/${enc(collection)}/records${query}`);
      xhr.setRequestHeader("content-type", type);
      for (const [key, value] of Object.entries(authHeaders())) xhr.setRequestHeader(key, value);
      xhr.upload.onprogress = (event) => onProgress(event.lengthComputable ? event.loaded : 0);
      xhr.onerror = () => reject(new ApiError(0, "NETWORK_ERROR", "Network error during the upload.", {}));
      xhr.onload = () => {
        noteStatus(xhr.status);
        const data = parseJson(xhr.responseText);
        if (xhr.status >= 200 && xhr.status < 300 && isPlainObject(data)) resolve(data);
        else reject(errorFromBody(xhr.status, data, xhr.responseText));
      };
      xhr.send(file);
    });
  }

  const REPORT_COUNTS = ["records", "added", "updated", "unchanged", "duplicates", "chunks", "seconds"];

  function renderUploadReport(total, refusals, warnings, failures) {
    const box = clear($("#upload-report"));
    const counts = REPORT_COUNTS.map((key) => `${key} ${key === "seconds" ? total[key].toFixed(2) : total[key]}`);
    counts.splice(5, 0, `refused ${refusals.length}`);
    box.append(el("p", { className: "summary" }, counts.join(" · ")));
    if (refusals.length) box.append(el("ul", { className: "refusals" }, refusals.map((text) => el("li", { className: "refusal" }, text))));
    if (warnings.length) box.append(el("ul", { className: "warnings" }, warnings.map((text) => el("li", { className: "warning" }, text))));
    if (failures.length) box.append(el("ul", { className: "failures", role: "alert" }, failures.map((text) => el("li", { className: "error-text" }, text))));
  }

  /** Uploads the chosen files one after the other, summing their reports. */
  async function uploadSelected() {
    const collection = $("#upload-collection").value;
    const files = Array.from($("#upload-files").files || []);
    const progress = $("#upload-progress");
    const box = $("#upload-report");
    if (!collection) return void clear(box).append(el("p", { className: "error-text", role: "alert" }, "Choose a collection."));
    if (!files.length) return void clear(box).append(el("p", { className: "error-text", role: "alert" }, "Choose one or more files."));
    const total = Object.fromEntries(REPORT_COUNTS.map((key) => [key, 0]));
    const refusals = [];
    const warnings = [];
    const failures = [];
    const bytes = files.reduce((sum, file) => sum + file.size, 0) || 1;
    let done = 0;
    const button = $("#upload");
    setBusy(button, null, true);
    progress.value = 0;
    clear(box).append(el("p", { className: "muted" }, "Uploading…"));
    for (const file of files) {
      const prefix = files.length > 1 ? `${file.name}, ` : "";
      if (!uploadContentType(file.name)) {
        failures.push(`${file.name}: not a .jsonl, .ndjson, .json, .csv or .md file; skipped.`);
        done += file.size;
        continue;
      }
      try {
        const report = await uploadFile(collection, file, (loaded) => (progress.value = Math.min(1, (done + loaded) / bytes)));
        for (const key of REPORT_COUNTS) total[key] += Number(report[key]) || 0;
        for (const item of report.refused || []) refusals.push(`${prefix}${asText(item.where ?? `record ${item.index}`)}: ${asText(item.reason)}`);
        for (const text of report.warnings || []) warnings.push(`${prefix}${asText(text)}`);
      } catch (error) {
        failures.push(`${file.name}: ${error.message}`);
      }
      done += file.size;
      progress.value = done / bytes;
    }
    progress.value = 1;
    setBusy(button, null, false);
    renderUploadReport(total, refusals, warnings, failures);
    await loadCollections();
    if (state.collection === collection) loadDocuments(true);
  }

  async function deleteRecord() {
    const collection = $("#upload-collection").value;
    const id = $("#delete-id").value.trim();
    const box = $("#delete-report");
    if (!collection || !id) return showMessage(box, "Choose a collection and enter a record id.");
    if (!confirm(`Delete record ${id} from ${collection}? All its documents are removed; this cannot be undone.`)) return;
    const button = $("#delete");
    setBusy(button, null, true);
    showMessage(box, "Deleting…");
    try {
      const answer = await api(`/api/collections/${enc(collection)}/records?id=${enc(id)}`, { method: "DELETE" });
      clear(box).append(el("p", { className: "summary" }, `Deleted ${fmtNumber(answer.deleted)} document${answer.deleted === 1 ? "" : "s"} of record ${id}.`), el("pre", { className: "code" }, pretty(answer)));
      await loadCollections();
      if (state.collection === collection) loadDocuments(true);
    } catch (error) {
      clear(box).append(el("p", { className: "error-text", role: "alert" }, error.message));
    } finally {
      setBusy(button, null, false);
    }
  }

  /** Shows or hides the write controls by what the server allows. */
  function applyWritePermissions() {
    const info = state.info || {};
    const writes = info.writes !== false;
    $("#upload").disabled = !writes;
    $("#upload-files").disabled = !writes;
    showMessage($("#upload-note"), writes ? "" : "Writes are turned off on this server, so uploads are refused.");
    const deleteAllowed = info.delete_allowed === true;
    $("#delete-box").hidden = !deleteAllowed;
    showMessage(
      $("#delete-note"),
      deleteAllowed ? "" : `Deleting records needs the server's tier to be admin${info.tier ? ` (this server's tier is ${info.tier})` : ""}${writes ? "" : " and writes turned on"}.`
    );
  }

  function initCollectionsPanel() {
    $("#collections-refresh").addEventListener("click", loadCollections);
    $("#more-documents").addEventListener("click", () => loadDocuments(false));
    $("#record-form").addEventListener("submit", (event) => {
      event.preventDefault();
      openRecord($("#record-id").value.trim());
    });
    $("#upload").addEventListener("click", uploadSelected);
    $("#delete").addEventListener("click", deleteRecord);
    tabHooks.collections = { show: loadCollections };
  }

  /* ------------------------------------------------------------------ Evaluations panel */

  async function loadEvaluations() {
    const list = $("#evaluations");
    showMessage($("#evaluations-error"), "");
    clear(list).append(el("li", { className: "muted" }, "Loading…"));
    try {
      const data = await api("/api/console/evaluations");
      $("#eval-dir").textContent = data.eval_dir ? `From ${data.eval_dir}` : "";
      clear(list);
      state.reports = new Map();
      for (const report of data.reports || []) {
        state.reports.set(report.name, report);
        list.append(reportLink(report));
      }
      if (!state.reports.size) list.append(el("li", { className: "muted" }, "No reports yet: run `haygate eval` to write one."));
    } catch (error) {
      clear(list);
      showMessage($("#evaluations-error"), error.message);
    }
  }

  function reportLink(report) {
    const variants = (report.variants || []).join(", ");
    const link = el(
      "a",
      { href: "#evaluations", dataset: { report: report.name } },
      el("span", { className: "report-name" }, report.name),
      el("span", { className: "report-meta" }, `${report.dataset ?? "—"} / ${report.split ?? "—"} · ${report.n_queries ?? "—"} queries`),
      el("span", { className: "report-meta" }, `variants: ${variants || "—"}`),
      el("span", { className: "report-meta" }, `modified ${fmtDate(report.modified)}`)
    );
    link.addEventListener("click", (event) => {
      event.preventDefault();
      openReport(report.name);
    });
    return el("li", {}, link);
  }

  async function openReport(name) {
    for (const link of $$("#evaluations a[data-report]")) link.classList.toggle("active", link.dataset.report === name);
    const view = clear($("#report-view"));
    view.append(el("p", { className: "muted" }, `Loading ${name}…`));
    try {
      const report = await api(`/api/console/evaluations/report?name=${enc(name)}`);
      renderReport(name, report);
      if (state.reports.get(name)?.has_plot) loadPlot(name);
    } catch (error) {
      clear(view).append(el("p", { className: "error-text", role: "alert" }, error.message));
    }
  }

  function metricNames(variants) {
    const names = [];
    for (const variant of variants) for (const key of Object.keys(variant.metrics || {})) if (!names.includes(key)) names.push(key);
    return names;
  }

  function tableOf(className, headers, rows) {
    return el(
      "div",
      { className: "table-wrap" },
      el("table", { className: `table ${className}` }, el("thead", {}, el("tr", {}, headers.map((h) => el("th", { scope: "col", className: h.num ? "num" : "" }, h.text ?? h)))), el("tbody", {}, rows))
    );
  }

  function metricsTable(report, variants, metrics) {
    const best = Object.fromEntries(metrics.map((m) => [m, Math.max(...variants.map((v) => v.metrics?.[m] ?? -Infinity))]));
    const rows = variants.map((variant) => {
      const isBaseline = variant.name === report.baseline;
      return el(
        "tr",
        { className: isBaseline ? "baseline" : "" },
        el("th", { scope: "row", title: variant.pipeline || "" }, variant.name, isBaseline ? el("span", { className: "badge" }, "baseline") : null),
        metrics.map((m) => el("td", { className: `num${variant.metrics?.[m] === best[m] ? " best" : ""}` }, fmtFixed(variant.metrics?.[m]))),
        el("td", { className: "num" }, fmtMs(variant.latency_ms?.p50)),
        el("td", { className: "num" }, fmtMs(variant.latency_ms?.p95))
      );
    });
    const headers = ["Variant", ...metrics.map((m) => ({ text: m, num: true })), { text: "p50 ms", num: true }, { text: "p95 ms", num: true }];
    return tableOf("metrics", headers, rows);
  }

  function comparisonsTable(comparisons) {
    const rows = comparisons.map((c) => {
      const delta = typeof c.delta === "number" ? c.delta : null;
      return el(
        "tr",
        { className: c.significant ? "significant" : "" },
        el("th", { scope: "row" }, asText(c.variant)),
        el("td", {}, asText(c.metric)),
        el("td", { className: "num" }, fmtFixed(c.baseline_value)),
        el("td", { className: "num" }, fmtFixed(c.variant_value)),
        el("td", { className: `num ${delta > 0 ? "up" : delta < 0 ? "down" : ""}` }, delta === null ? "—" : `${delta > 0 ? "+" : ""}${delta.toFixed(4)}`),
        el("td", { className: "num" }, fmtFixed(c.p_value)),
        el("td", { className: "sig", title: c.significant ? "significant" : "not significant" }, c.significant ? "✔ significant" : "—"),
        el("td", { className: "num" }, fmtNumber(c.better)),
        el("td", { className: "num" }, fmtNumber(c.tied)),
        el("td", { className: "num" }, fmtNumber(c.worse))
      );
    });
    const num = (text) => ({ text, num: true });
    return tableOf("comparisons", ["Variant", "Metric", num("Baseline"), num("Variant"), num("Delta"), num("p-value"), "Significant", num("Better"), num("Tied"), num("Worse")], rows);
  }

  /** Per-query score differences of one variant against the baseline, split into wins and losses. */
  function queryDeltas(baseline, variant, metric) {
    const base = baseline.per_query?.[metric] || {};
    const other = variant.per_query?.[metric] || {};
    const deltas = [];
    for (const [queryId, score] of Object.entries(other)) {
      if (typeof base[queryId] !== "number" || typeof score !== "number") continue;
      deltas.push({ queryId, base: base[queryId], score, delta: score - base[queryId] });
    }
    const byMagnitude = (a, b) => Math.abs(b.delta) - Math.abs(a.delta);
    return {
      wins: deltas.filter((d) => d.delta > 0).sort(byMagnitude).slice(0, 10),
      losses: deltas.filter((d) => d.delta < 0).sort(byMagnitude).slice(0, 10),
    };
  }

  function queryItem(entry, queries, variantName) {
    const text = queries?.[entry.queryId];
    return el(
      "li",
      { dataset: { query: entry.queryId } },
      el("span", { className: "mono" }, entry.queryId),
      present(text) ? el("span", { className: "query-text" }, ` ${asText(text)}`) : null,
      el("span", { className: "scores" }, `baseline ${fmtFixed(entry.base)} → ${variantName} ${fmtFixed(entry.score)} (${entry.delta > 0 ? "+" : ""}${entry.delta.toFixed(4)})`)
    );
  }

  function renderQueryLists(report, baseline, variant, metric) {
    const { wins, losses } = queryDeltas(baseline, variant, metric);
    const fill = (id, items, none) => {
      const list = clear($(id));
      for (const entry of items) list.append(queryItem(entry, report.queries, variant.name));
      if (!items.length) list.append(el("li", { className: "muted" }, none));
    };
    fill("#wins", wins, "No query improved.");
    fill("#losses", losses, "No query got worse.");
  }

  /** The wins/losses section; a variant picker appears when several variants have per-query scores. */
  function perQuerySection(report, variants) {
    const baseline = variants.find((v) => v.name === report.baseline);
    const others = variants.filter((v) => v !== baseline && v.per_query);
    const section = el("section", { className: "per-query" }, el("h3", {}, "Per-query wins and losses"));
    const metricsWithScores = Object.keys(baseline?.per_query || {});
    if (!baseline || !metricsWithScores.length || !others.length) {
      section.append(el("p", { className: "muted" }, "This report has no per-query scores; the better / tied / worse counts above are all there is."));
      return { section, render: () => {} };
    }
    const metric = metricsWithScores.includes("ndcg@10") ? "ndcg@10" : metricsWithScores[0];
    const picker = el("select", { id: "wins-variant" }, others.map((v) => el("option", { value: v.name }, v.name)));
    section.append(
      el("p", { className: "muted" }, `On ${metric}, against the baseline ${baseline.name}; top 10 each by the size of the change.`),
      others.length > 1 ? el("div", { className: "field inline" }, el("label", { htmlFor: "wins-variant" }, "Variant"), picker) : "",
      el("div", { className: "grid-2 inner" }, el("div", {}, el("h4", {}, "Wins"), el("ol", { id: "wins", className: "query-list" })), el("div", {}, el("h4", {}, "Losses"), el("ol", { id: "losses", className: "query-list" })))
    );
    const render = () => renderQueryLists(report, baseline, others.find((v) => v.name === picker.value) || others[0], metric);
    picker.addEventListener("change", render);
    return { section, render };
  }

  function renderReport(name, report) {
    const variants = Array.isArray(report.variants) ? report.variants : [];
    const comparisons = Array.isArray(report.comparisons) ? report.comparisons : [];
    const metrics = metricNames(variants);
    revokePlot();
    const view = clear($("#report-view"));
    view.append(
      el("h2", {}, name),
      el("p", { className: "muted" }, `${report.dataset ?? "—"} / ${report.split ?? "—"} · ${report.n_queries ?? "—"} queries · baseline ${report.baseline ?? "—"} · ${report.stat_test ?? "—"} test, α = ${report.alpha ?? "—"}`),
      el("h3", {}, "Metrics"),
      variants.length ? metricsTable(report, variants, metrics) : el("p", { className: "muted" }, "No variants."),
      el("h3", {}, "Comparisons with the baseline"),
      comparisons.length ? comparisonsTable(comparisons) : el("p", { className: "muted" }, "No comparisons.")
    );
    const perQuery = perQuerySection(report, variants);
    view.append(perQuery.section);
    perQuery.render(); // after insertion: it fills #wins / #losses by id
    view.append(el("div", { id: "plot-box", className: "plot" }));
  }

  function revokePlot() {
    if (state.plotUrl) URL.revokeObjectURL(state.plotUrl);
    state.plotUrl = null;
  }

  async function loadPlot(name) {
    const box = $("#plot-box");
    if (!box) return;
    box.replaceChildren(el("h3", {}, "Plot"), el("p", { className: "muted" }, "Loading the plot…"));
    try {
      const blob = await apiBlob(`/api/console/evaluations/plot?name=${enc(name)}`);
      if (!box.isConnected) return; // another report was opened meanwhile
      revokePlot();
      state.plotUrl = URL.createObjectURL(blob);
      const variants = (state.reports.get(name)?.variants || []).join(", ");
      const img = el("img", { id: "report-plot", src: state.plotUrl, alt: `Evaluation plot for ${name}: metric scores of each variant (${variants || "variants"}) on the ${state.reports.get(name)?.dataset ?? ""} dataset.` });
      box.replaceChildren(el("h3", {}, "Plot"), img);
    } catch (error) {
      box.replaceChildren(el("h3", {}, "Plot"), el("p", { className: "error-text" }, `The plot could not be loaded: ${error.message}`));
    }
  }

  function initEvaluationsPanel() {
    $("#evaluations-refresh").addEventListener("click", loadEvaluations);
    // Loaded once (a report stays open while switching tabs); again while the list is empty or failed.
    tabHooks.evaluations = { show: () => $("#evaluations a[data-report]") || loadEvaluations() };
  }

  /* ------------------------------------------------------------------ Judge panel */

  // As the server checks them (haygate/server/judging.py); checked here too, to say so beside the field.
  const SET_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
  const SPLIT_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;
  const QUERY_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;
  const GRADE_SHORT = ["not relevant", "partly", "relevant", "exact"];
  const GRADE_LONG = ["not relevant", "partly relevant", "relevant", "exactly what was asked"];
  const JUDGE_EXCERPT_LIMIT = 280;
  const NEW_SET = ""; // the set picker's value for "a new set"

  const judge = {
    folder: "evaluation", // where the sets are, relative to the project (GET /judged says)
    sets: [],
    listed: false,
    set: null, // {name, tool, level, split, saved}
    queries: [], // [{id, text, arguments}]
    grades: {}, // query id -> judged id -> 0..3
    seen: {}, // query id -> judged ids in the order the tool ranked them when last saved
    loaded: {}, // query id -> {items, order, skipped}: the results of this page's last run
    selected: null,
    focus: 0, // index of the current result (roving tabindex)
    revision: 0, // bumped by every change; saved when it equals savedRevision
    savedRevision: 0,
    runTicket: 0,
  };

  const judgeDirty = () => judge.set !== null && judge.revision !== judge.savedRevision;

  /** What a result row is graded as: its record (level record) or its section, the chunk suffix removed. */
  function judgedIdOf(row, entry, level) {
    const documentId = asText(entry?.id) || asText(row?.id);
    if (level === "record") return asText(entry?.record_id) || asText(row?.record_id) || documentId;
    return documentId.replace(/#chunk\d+$/, "");
  }

  /** The tools a set can judge: those taking a `query` string. */
  function judgeableTools() {
    return state.tools.filter((tool) => {
      const query = tool.input_schema?.properties?.query;
      return query && propertyType(query).type === "string";
    });
  }

  function renderJudgeTools() {
    const select = $("#judge-tool");
    const previous = select.value;
    const tools = judgeableTools();
    clear(select);
    for (const tool of tools) select.append(el("option", { value: tool.name }, tool.name));
    if (!tools.length) select.append(el("option", { value: "" }, state.tools.length ? "No tool takes a query" : "Loading…"));
    if (tools.some((tool) => tool.name === previous)) select.value = previous;
  }

  function markChanged() {
    judge.revision += 1;
    renderDirty();
  }

  function renderDirty() {
    const dirty = judgeDirty();
    $("#judge-dirty").hidden = !dirty;
    if (dirty) $("#judge-saved").hidden = true;
  }

  /** Asks before an action that would drop unsaved changes; true when there are none or the user agrees. */
  function mayDiscard(action) {
    return !judgeDirty() || confirm(`The judged set “${judge.set.name}” has unsaved changes. ${action} anyway, and lose them?`);
  }

  /* -- the set: list, open, start */

  async function loadJudgedSets() {
    try {
      const data = await api("/api/console/judged");
      judge.folder = asText(data.folder) || "evaluation";
      judge.sets = Array.isArray(data.sets) ? data.sets.filter(isPlainObject) : [];
      judge.listed = true;
      showMessage($("#judge-error"), "");
    } catch (error) {
      showMessage($("#judge-error"), `Could not list the judged sets: ${error.message}`);
    }
    renderSetPicker();
  }

  function renderSetPicker() {
    const select = $("#judge-set");
    const wanted = judge.listed ? select.value || judge.set?.name || NEW_SET : NEW_SET;
    clear(select).append(el("option", { value: NEW_SET }, "— a new set —"));
    const problems = [];
    for (const set of judge.sets) {
      const name = asText(set.name);
      if (set.problem) {
        select.append(el("option", { value: name, disabled: true }, `${name} (cannot be read)`));
        problems.push(`${name}: ${asText(set.problem)}`);
      } else select.append(el("option", { value: name }, `${name} · ${asText(set.tool)} · ${asText(set.level) || "section"}`));
    }
    const openable = judge.sets.some((set) => set.name === wanted && !set.problem);
    select.value = openable ? wanted : NEW_SET;
    const list = clear($("#judge-problems"));
    for (const problem of problems) list.append(el("li", {}, problem));
    list.hidden = !problems.length;
    $("#judge-folder").textContent = `Judged sets are the folders under ${judge.folder}/ of the project (${judge.sets.length} now), as haygate eval --judged reads them.`;
    updateSetForm();
  }

  /** The new-set fields show for "a new set"; an existing set offers its splits. */
  function updateSetForm() {
    const name = $("#judge-set").value;
    const isNew = name === NEW_SET;
    $("#judge-new").hidden = !isNew;
    $("#judge-open").disabled = isNew;
    const set = judge.sets.find((item) => item.name === name);
    const splits = Array.isArray(set?.splits) && set.splits.length ? set.splits : ["test"];
    clear($("#judge-splits")).append(...splits.map((split) => el("option", { value: asText(split) })));
  }

  function readSplit() {
    const input = $("#judge-split");
    const split = input.value.trim() || "test";
    const ok = SPLIT_NAME.test(split);
    if (ok) input.removeAttribute("aria-invalid");
    else input.setAttribute("aria-invalid", "true");
    return ok ? split : null;
  }

  async function openJudgedSet(event) {
    event?.preventDefault();
    const name = $("#judge-set").value;
    const error = $("#judge-error");
    if (name === NEW_SET) return;
    const split = readSplit();
    if (!split) return showMessage(error, "A split's name is lowercase letters, digits, - and _, such as test or dev.");
    if (!mayDiscard(`Open ${name}`)) return;
    const button = $("#judge-open");
    setBusy(button, null, true);
    showMessage(error, "");
    try {
      const data = await api(`/api/console/judged/${enc(name)}?split=${enc(split)}`);
      beginSet({ name: asText(data.name) || name, tool: asText(data.tool), level: data.level === "record" ? "record" : "section", split: asText(data.split) || split, saved: true }, data);
    } catch (failure) {
      showMessage(error, `Could not open ${name}: ${failure.message}`);
    } finally {
      setBusy(button, null, false);
      updateSetForm();
    }
  }

  function startNewSet() {
    const error = $("#judge-error");
    const nameInput = $("#judge-name");
    const name = nameInput.value.trim();
    const tool = $("#judge-tool").value;
    const level = $('input[name="judge-level"]:checked')?.value === "record" ? "record" : "section";
    const split = readSplit();
    nameInput.removeAttribute("aria-invalid");
    let problem = "";
    if (!SET_NAME.test(name)) problem = "A set's name is lowercase letters, digits, - and _ (up to 64), such as docs-judged.";
    else if (judge.sets.some((set) => set.name === name)) problem = `There is a set named ${name} already: choose it above and open it.`;
    if (problem) {
      nameInput.setAttribute("aria-invalid", "true");
      nameInput.focus();
      return showMessage(error, problem);
    }
    if (!tool) return showMessage(error, "Choose the tool whose results are judged.");
    if (!split) return showMessage(error, "A split's name is lowercase letters, digits, - and _, such as test or dev.");
    if (!mayDiscard("Start a new set")) return;
    showMessage(error, "");
    beginSet({ name, tool, level, split, saved: false }, {});
    $("#judge-query-text").focus();
  }

  function beginSet(set, data) {
    judge.set = set;
    judge.queries = (Array.isArray(data.queries) ? data.queries : []).filter(isPlainObject).map((q) => ({
      id: asText(q.id),
      text: asText(q.text),
      arguments: isPlainObject(q.arguments) && Object.keys(q.arguments).length ? q.arguments : null,
    }));
    judge.grades = {};
    for (const [queryId, judged] of Object.entries(isPlainObject(data.grades) ? data.grades : {})) {
      if (!isPlainObject(judged)) continue;
      const kept = Object.fromEntries(Object.entries(judged).filter(([, grade]) => Number.isInteger(grade) && grade >= 0 && grade <= 3));
      if (Object.keys(kept).length) judge.grades[queryId] = kept;
    }
    judge.seen = {};
    for (const [queryId, ranking] of Object.entries(isPlainObject(data.seen) ? data.seen : {})) {
      if (Array.isArray(ranking)) judge.seen[queryId] = ranking.map(asText);
    }
    judge.loaded = {};
    judge.selected = null;
    judge.focus = 0;
    judge.revision = judge.savedRevision = 0;
    renderDirty();
    $("#judge-workspace").hidden = false;
    $("#judge-saved").hidden = true;
    showMessage($("#judge-save-error"), "");
    $("#judge-save-status").textContent = "";
    renderJudgeHeader();
    renderQueryList();
    if (judge.queries.length) selectQuery(judge.queries[0].id);
    else renderResults();
  }

  function renderJudgeHeader() {
    const set = judge.set;
    $("#judge-title").textContent = set.name;
    const served = state.toolsByName.has(set.tool) || !state.tools.length;
    $("#judge-meta").textContent = `tool ${set.tool}${served ? "" : " (not served here)"} · level ${set.level} · split ${set.split}${set.saved ? "" : " · not saved yet"}`;
  }

  /* -- queries */

  function nextQueryId() {
    let highest = 0;
    for (const query of judge.queries) {
      const match = /^q(\d+)$/.exec(query.id);
      if (match) highest = Math.max(highest, Number(match[1]));
    }
    return `q${highest + 1}`;
  }

  /** "3 graded · 2 unjudged" among the results last run; before a run, the grades the query has. */
  function queryCounts(queryId) {
    const grades = judge.grades[queryId] || {};
    const loaded = judge.loaded[queryId];
    if (!loaded) return `${Object.keys(grades).length} graded · not run yet`;
    const graded = loaded.order.filter((id) => id in grades).length;
    return `${graded} graded · ${loaded.order.length - graded} unjudged`;
  }

  function renderQueryList() {
    const list = clear($("#judge-queries"));
    for (const query of judge.queries) {
      const selected = query.id === judge.selected;
      const countsId = `judge-counts-${query.id}`;
      const pick = el(
        "button",
        { type: "button", className: "query-pick", "aria-current": selected ? "true" : null, "aria-describedby": countsId },
        el("span", { className: "mono" }, query.id),
        " ",
        el("span", { className: "query-text" }, query.text),
        query.arguments ? el("span", { className: "query-arguments mono" }, ` ${JSON.stringify(query.arguments)}`) : null
      );
      pick.addEventListener("click", () => selectQuery(query.id));
      const remove = el("button", { type: "button", className: "button-light query-remove", "aria-label": `Remove query ${query.id}`, title: `Remove query ${query.id}` }, "Remove");
      remove.addEventListener("click", () => removeQuery(query.id));
      list.append(el("li", { className: `judge-query${selected ? " selected" : ""}`, dataset: { query: query.id } }, pick, el("span", { id: countsId, className: "query-counts" }, queryCounts(query.id)), remove));
    }
    if (!judge.queries.length) list.append(el("li", { className: "muted" }, "No queries yet: add one below."));
  }

  function updateQueryCounts(queryId) {
    for (const item of $$("#judge-queries .judge-query")) {
      if (item.dataset.query === queryId) $(".query-counts", item).textContent = queryCounts(queryId);
    }
  }

  function addQuery(event) {
    event.preventDefault();
    const textInput = $("#judge-query-text");
    const idInput = $("#judge-query-id");
    const argumentsInput = $("#judge-query-arguments");
    const errorBox = $("#judge-add-error");
    for (const input of [textInput, idInput, argumentsInput]) input.removeAttribute("aria-invalid");
    const fail = (input, message) => {
      input.setAttribute("aria-invalid", "true");
      input.focus();
      showMessage(errorBox, message);
    };
    if (!judge.set) return fail(textInput, "Open a set or start a new one first.");
    const text = textInput.value.trim();
    const typedId = idInput.value.trim();
    if (!text) return fail(textInput, "Type the query's text.");
    if (typedId && !QUERY_ID.test(typedId)) return fail(idInput, "An id is up to 64 letters, digits and _ . : -, starting with a letter or a digit.");
    if (typedId && judge.queries.some((query) => query.id === typedId)) return fail(idInput, `There is a query ${typedId} already.`);
    let args = null;
    if (argumentsInput.value.trim()) {
      try {
        args = JSON.parse(argumentsInput.value);
      } catch {
        return fail(argumentsInput, 'Not valid JSON: write an object, such as {"version": "1.1"}.');
      }
      if (!isPlainObject(args)) return fail(argumentsInput, 'The other arguments are a JSON object, such as {"version": "1.1"}.');
      if (!Object.keys(args).length) args = null;
    }
    showMessage(errorBox, "");
    const id = typedId || nextQueryId();
    judge.queries.push({ id, text, arguments: args });
    for (const input of [textInput, idInput, argumentsInput]) input.value = "";
    markChanged();
    announce(`Query ${id} added.`);
    selectQuery(id); // the focus stays in the box, for the next query; Esc goes to the results
  }

  function removeQuery(queryId) {
    const index = judge.queries.findIndex((query) => query.id === queryId);
    if (index < 0) return;
    const graded = Object.keys(judge.grades[queryId] || {}).length;
    if (graded && !confirm(`Remove query ${queryId} and its ${graded} grade${graded === 1 ? "" : "s"}?`)) return;
    judge.queries.splice(index, 1);
    delete judge.grades[queryId];
    delete judge.seen[queryId];
    delete judge.loaded[queryId];
    markChanged();
    announce(`Query ${queryId} removed.`);
    const neighbour = judge.queries[index] || judge.queries[index - 1];
    if (judge.selected === queryId) {
      judge.selected = null;
      if (neighbour) selectQuery(neighbour.id);
      else renderResults();
    }
    renderQueryList();
    const next = neighbour && $$("#judge-queries .judge-query").find((item) => item.dataset.query === neighbour.id);
    (next ? $(".query-pick", next) : $("#judge-query-text")).focus();
  }

  async function selectQuery(queryId, focusResults = false) {
    judge.selected = queryId;
    judge.focus = 0;
    renderQueryList();
    renderResults();
    if (!judge.loaded[queryId]) await runQuery(queryId);
    if (focusResults && judge.selected === queryId) focusResult(0);
  }

  function stepQuery(step) {
    const index = judge.queries.findIndex((query) => query.id === judge.selected);
    const next = judge.queries[index + step];
    if (!next) return announce(step > 0 ? "This is the last query." : "This is the first query.");
    selectQuery(next.id, true);
  }

  /* -- results */

  /** The rows of a call, each with the judged id it is graded as; `order` is the judged ids in rank order. */
  function rankedResults(data, level) {
    const rows = resultRows(data.result);
    const provenance = Array.isArray(data.provenance) ? data.provenance : [];
    const items = [];
    const order = [];
    let skipped = 0;
    rows.forEach((row, index) => {
      const judgedId = isPlainObject(row) ? judgedIdOf(row, provenance[index], level) : "";
      if (!judgedId) {
        skipped += 1;
        return;
      }
      const first = !order.includes(judgedId);
      if (first) order.push(judgedId);
      items.push({ row, judgedId, first, rank: index + 1, provenance: provenance[index] || null });
    });
    return { items, order, skipped };
  }

  async function runQuery(queryId) {
    const query = judge.queries.find((item) => item.id === queryId);
    if (!query || !judge.set) return;
    const ticket = ++judge.runTicket;
    const button = $("#judge-run");
    setBusy(button, $("#judge-run-status"), true, "Running…");
    showMessage($("#judge-run-error"), "");
    const set = judge.set;
    try {
      const data = await api("/api/console/call", { method: "POST", body: { tool: set.tool, arguments: { query: query.text, ...(query.arguments || {}) }, pipeline: null } });
      if (judge.set !== set) return; // another set was opened meanwhile
      judge.loaded[queryId] = rankedResults(data, set.level);
      judge.loaded[queryId].elapsed = data.elapsed_ms;
      if (judge.selected === queryId) announce(`Query ${queryId}: ${judge.loaded[queryId].items.length} results, ${unjudgedText(queryId)}.`);
    } catch (error) {
      if (ticket === judge.runTicket && judge.selected === queryId) showMessage($("#judge-run-error"), compareErrorText(`Query ${queryId}`, error));
    } finally {
      if (ticket === judge.runTicket) setBusy(button, $("#judge-run-status"), false);
      button.disabled = !judge.selected;
    }
    if (judge.selected === queryId) renderResults();
    updateQueryCounts(queryId);
  }

  function gradeText(grade) {
    return grade === undefined ? "Not judged yet" : `Grade ${grade}: ${GRADE_LONG[grade]}`;
  }

  /** The 0–3 buttons (aria-pressed says which is set), a Clear button and the grade in words. */
  function gradeControls(queryId, judgedId, label, stateId) {
    const grade = judge.grades[queryId]?.[judgedId];
    const group = el("div", { className: "grade-bar", role: "group", "aria-label": `Grade of ${label}` });
    for (let value = 0; value <= 3; value += 1) {
      const button = el(
        "button",
        { type: "button", className: `grade grade-${value}`, dataset: { grade: String(value) }, "aria-pressed": String(grade === value), title: `${value}: ${GRADE_LONG[value]} (key ${value})` },
        el("span", { className: "grade-value" }, String(value)),
        " ",
        el("span", { className: "grade-name" }, GRADE_SHORT[value])
      );
      button.addEventListener("click", () => setGrade(queryId, judgedId, value));
      group.append(button);
    }
    const clearButton = el("button", { type: "button", className: "grade-clear", title: "Clear the grade (key u)" }, "Clear");
    clearButton.addEventListener("click", () => setGrade(queryId, judgedId, undefined));
    group.append(clearButton, el("span", { id: stateId, className: "grade-state" }, gradeText(grade)));
    return group;
  }

  /** ↑2 / ↓1 / = against the ranking saved when the query was last graded; "new" when it was not in it. */
  function rankMove(judgedId, order, previous) {
    if (!Array.isArray(previous)) return null;
    const now = order.indexOf(judgedId);
    const before = previous.indexOf(judgedId);
    if (before < 0) return el("span", { className: "rank-change new", title: "Not in the tool's results when this query was last graded" }, "new");
    const moved = before - now; // positive: moved up
    if (!moved) return el("span", { className: "rank-change same", title: `Rank ${now + 1}, as when last graded` }, "=", el("span", { className: "visually-hidden" }, " (same rank as when last graded)"));
    const up = moved > 0;
    return el(
      "span",
      { className: `rank-change ${up ? "up" : "down"}`, title: `Rank ${before + 1} when last graded, ${now + 1} now` },
      `${up ? "↑" : "↓"}${Math.abs(moved)}`,
      el("span", { className: "visually-hidden" }, ` (${up ? "up" : "down"} ${Math.abs(moved)} since last graded)`)
    );
  }

  function judgeResultItem(queryId, item, index, loaded) {
    const { row, judgedId } = item;
    const title = isPlainObject(row) ? rowTitle(row) : asText(row);
    const titleId = `judge-result-title-${index}`;
    const stateId = `judge-result-state-${index}`;
    const excerpt = asText(firstPresent(row, EXCERPT_KEYS));
    const firstItem = loaded.items.find((other) => other.judgedId === judgedId);
    const graded = judge.grades[queryId]?.[judgedId] !== undefined;
    const li = el(
      "li",
      { className: `judge-result${graded ? "" : " unjudged"}`, tabIndex: -1, value: item.rank, dataset: { judged: judgedId, index: String(index) }, "aria-labelledby": titleId, "aria-describedby": stateId },
      el("div", { className: "result-head" }, el("span", { className: "result-title", id: titleId }, title), item.first ? rankMove(judgedId, loaded.order, judge.seen[queryId]) : null),
      el(
        "div",
        { className: "judged-id" },
        "judged as ",
        el("code", {}, judgedId),
        item.first ? null : el("span", { className: "muted" }, ` · the same ${judge.set.level} as #${firstItem.rank}: one grade for both`)
      ),
      excerpt ? appendHighlighted(el("p", { className: "result-excerpt" }), clip(excerpt, JUDGE_EXCERPT_LIMIT)) : null,
      gradeControls(queryId, judgedId, title, stateId)
    );
    li.addEventListener("focusin", () => {
      judge.focus = index;
      setRovingFocus();
    });
    return li;
  }

  function renderResults() {
    const list = clear($("#judge-results"));
    const query = judge.queries.find((item) => item.id === judge.selected);
    const line = $("#judge-query-line");
    $("#judge-run").disabled = !query;
    $("#judge-gone-box").hidden = true;
    $("#judge-unjudged").textContent = "";
    if (!query) {
      line.textContent = judge.queries.length ? "Choose a query to see the tool's results." : "Add a query to see the tool's results.";
      return;
    }
    line.replaceChildren(
      el("span", { className: "mono" }, query.id),
      " ",
      el("span", { className: "query-text" }, query.text),
      query.arguments ? el("span", { className: "mono" }, ` ${JSON.stringify(query.arguments)}`) : "",
      ` · ${judge.set.tool}`
    );
    const loaded = judge.loaded[query.id];
    if (!loaded) {
      list.append(el("li", { className: "empty" }, "Not run yet."));
      return;
    }
    if (Number.isFinite(loaded.elapsed)) line.append(` · ${fmtMs(loaded.elapsed)} ms`);
    loaded.items.forEach((item, index) => list.append(judgeResultItem(query.id, item, index, loaded)));
    if (!loaded.items.length) list.append(el("li", { className: "empty" }, loaded.skipped ? `No result carries an id to grade (${loaded.skipped} rows).` : "No results."));
    else if (loaded.skipped) list.append(el("li", { className: "empty" }, `${loaded.skipped} row${loaded.skipped === 1 ? "" : "s"} without an id to grade left out.`));
    judge.focus = Math.min(judge.focus, Math.max(0, loaded.items.length - 1));
    setRovingFocus();
    renderUnjudgedCount(query.id);
    renderGone(query.id, loaded);
  }

  /** "k of N unjudged" among the judged ids of the query's results. */
  function unjudgedText(queryId) {
    const loaded = judge.loaded[queryId];
    if (!loaded) return "";
    const grades = judge.grades[queryId] || {};
    const unjudged = loaded.order.filter((id) => !(id in grades)).length;
    return `${unjudged} of ${loaded.order.length} unjudged${unjudged || !loaded.order.length ? "" : ": every result is graded"}`;
  }

  function renderUnjudgedCount(queryId) {
    const box = $("#judge-unjudged");
    box.textContent = unjudgedText(queryId);
    box.classList.toggle("done", box.textContent.startsWith("0 of"));
  }

  /** The judged ids of this query that the tool no longer returns, with their grades (editable). */
  function renderGone(queryId, loaded) {
    const grades = judge.grades[queryId] || {};
    const gone = Object.keys(grades).filter((id) => !loaded.order.includes(id));
    gone.sort((a, b) => grades[b] - grades[a] || a.localeCompare(b));
    const list = clear($("#judge-gone"));
    gone.forEach((judgedId, index) => {
      list.append(el("li", { className: "judge-gone-item", dataset: { judged: judgedId } }, el("code", {}, judgedId), gradeControls(queryId, judgedId, judgedId, `judge-gone-state-${index}`)));
    });
    $("#judge-gone-box").hidden = !gone.length;
  }

  /** Updates every view of one judged id in place (two rows of one section share it), keeping the focus. */
  function refreshGrade(queryId, judgedId) {
    if (judge.selected !== queryId) return;
    const grade = judge.grades[queryId]?.[judgedId];
    for (const item of [...$$("#judge-results .judge-result"), ...$$("#judge-gone .judge-gone-item")]) {
      if (item.dataset.judged !== judgedId) continue;
      item.classList.toggle("unjudged", grade === undefined);
      for (const button of $$("button.grade", item)) button.setAttribute("aria-pressed", String(Number(button.dataset.grade) === grade));
      $(".grade-state", item).textContent = gradeText(grade);
    }
    renderUnjudgedCount(queryId);
  }

  function setGrade(queryId, judgedId, grade) {
    const current = judge.grades[queryId]?.[judgedId];
    if (current === grade) return;
    if (grade === undefined) {
      delete judge.grades[queryId][judgedId];
      if (!Object.keys(judge.grades[queryId]).length) delete judge.grades[queryId];
    } else {
      if (!judge.grades[queryId]) judge.grades[queryId] = {};
      judge.grades[queryId][judgedId] = grade;
    }
    markChanged();
    refreshGrade(queryId, judgedId);
    updateQueryCounts(queryId);
    const shown = $$("#judge-results .judge-result").find((item) => item.dataset.judged === judgedId);
    const name = shown ? $(".result-title", shown).textContent : judgedId;
    const count = judge.selected === queryId ? ` ${unjudgedText(queryId)}.` : "";
    announce(`${name}: ${grade === undefined ? "grade cleared" : `grade ${grade}, ${GRADE_LONG[grade]}`}.${count}`);
  }

  /* -- focus and keys */

  const resultItems = () => $$("#judge-results .judge-result");

  function setRovingFocus() {
    resultItems().forEach((item, index) => {
      item.tabIndex = index === judge.focus ? 0 : -1;
      item.classList.toggle("current", index === judge.focus);
    });
  }

  function focusResult(index) {
    const items = resultItems();
    if (!items.length) return false;
    judge.focus = Math.max(0, Math.min(index, items.length - 1));
    setRovingFocus();
    items[judge.focus].focus();
    items[judge.focus].scrollIntoView({ block: "nearest" });
    return true;
  }

  function moveFocus(step) {
    const inResults = document.activeElement?.closest?.("#judge-results .judge-result");
    return focusResult(inResults ? judge.focus + step : judge.focus);
  }

  /** Grades the result (or gone item) holding the focus, else the current result. */
  function gradeFocused(grade) {
    const active = document.activeElement;
    const item = active?.closest?.("#judge-results .judge-result, #judge-gone .judge-gone-item") || resultItems()[judge.focus];
    if (!item || !judge.selected) return false;
    setGrade(judge.selected, item.dataset.judged, grade);
    return true;
  }

  function announce(text) {
    $("#judge-announce").textContent = text;
  }

  function onJudgeKey(event) {
    if (state.activeTab !== "judge" || !judge.set) return;
    const key = event.key;
    if ((event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey && key.toLowerCase() === "s") {
      event.preventDefault(); // the browser's "save page", here the set's save
      saveJudgedSet();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented || event.isComposing) return;
    const target = event.target instanceof Element ? event.target : document.body;
    if (target.closest("input, textarea, select, [contenteditable]")) {
      if (key === "Escape" && target.closest("#judge-add-form") && focusResult(judge.focus)) event.preventDefault();
      return; // typing
    }
    if (target !== document.body && !$("#panel-judge").contains(target)) return; // the tabs, the header
    let handled;
    if (key === "j" || key === "ArrowDown") handled = moveFocus(1);
    else if (key === "k" || key === "ArrowUp") handled = moveFocus(-1);
    else if (/^[0-3]$/.test(key)) handled = gradeFocused(Number(key));
    else if (key === "u") handled = gradeFocused(undefined);
    else if (key === "n" || key === "p") {
      stepQuery(key === "n" ? 1 : -1);
      handled = true;
    }
    if (handled) event.preventDefault();
  }

  /* -- saving */

  function judgeCommand(set) {
    return `haygate eval --judged ${judge.folder}/${set.name}${set.split === "test" ? "" : ` --split ${set.split}`}`;
  }

  /** PUTs every query, every grade (0 included) and, per query, the judged ids in the order last seen. */
  async function saveJudgedSet() {
    const set = judge.set;
    if (!set) return;
    const errorBox = $("#judge-save-error");
    const status = $("#judge-save-status");
    const button = $("#judge-save");
    if (button.disabled) return; // a save is under way
    if (!judge.queries.length) return showMessage(errorBox, "Add a query before saving: a judged set has at least one.");
    const seen = {};
    const grades = {};
    for (const query of judge.queries) {
      // A query not run on this page keeps the ranking saved before.
      const ranking = judge.loaded[query.id]?.order || judge.seen[query.id];
      if (ranking) seen[query.id] = [...ranking];
      if (judge.grades[query.id]) grades[query.id] = { ...judge.grades[query.id] };
    }
    const body = {
      tool: set.tool,
      level: set.level,
      split: set.split,
      queries: judge.queries.map((q) => (q.arguments ? { id: q.id, text: q.text, arguments: q.arguments } : { id: q.id, text: q.text })),
      grades,
      seen,
    };
    const revision = judge.revision;
    showMessage(errorBox, "");
    setBusy(button, status, true, "Saving…");
    let answer;
    try {
      answer = await api(`/api/console/judged/${enc(set.name)}`, { method: "PUT", body });
    } catch (error) {
      showMessage(errorBox, compareErrorText("Not saved", error));
      return;
    } finally {
      setBusy(button, status, false);
    }
    if (judge.set !== set) return;
    judge.savedRevision = revision; // changes made while saving stay unsaved
    judge.seen = seen;
    set.saved = true;
    renderJudgeHeader();
    renderDirty();
    const hadFocus = document.activeElement?.closest?.("#judge-results .judge-result") ? judge.focus : null;
    renderResults(); // the rank moves are now against this save
    if (hadFocus !== null) focusResult(hadFocus);
    $("#judge-saved-folder").textContent = `${judge.folder}/${set.name}/`;
    $("#judge-command").textContent = judgeCommand(set);
    $("#judge-saved").hidden = judgeDirty();
    status.textContent = `Saved ${fmtNumber(answer.queries)} quer${answer.queries === 1 ? "y" : "ies"} and ${fmtNumber(answer.judged)} grade${answer.judged === 1 ? "" : "s"} at ${new Date().toLocaleTimeString()}.`;
    loadJudgedSets(); // a new set joins the list
  }

  function initJudgePanel() {
    $("#judge-refresh").addEventListener("click", loadJudgedSets);
    $("#judge-set").addEventListener("change", updateSetForm);
    $("#judge-open-form").addEventListener("submit", openJudgedSet);
    $("#judge-start").addEventListener("click", startNewSet);
    $("#judge-add-form").addEventListener("submit", addQuery);
    $("#judge-run").addEventListener("click", () => judge.selected && runQuery(judge.selected));
    $("#judge-save").addEventListener("click", saveJudgedSet);
    document.addEventListener("keydown", onJudgeKey);
    window.addEventListener("beforeunload", (event) => {
      if (!judgeDirty()) return;
      event.preventDefault();
      event.returnValue = "unsaved"; // some browsers ask only when this is a non-empty string (never shown)
    });
    tabHooks.judge = {
      show: () => {
        renderJudgeTools();
        if (!judge.listed) loadJudgedSets();
      },
      canLeave: () => !judgeDirty() || confirm(`The judged set “${judge.set.name}” has unsaved changes (not on disk until saved). Leave the Judge tab anyway?`),
    };
  }

  /* ------------------------------------------------------------------ Live panel */

  const LIVE_INTERVAL_MS = 5000;

  function renderLiveStatus(health) {
    const box = clear($("#live-status"));
    const status = asText(health.status) || "unknown";
    box.append(
      el(
        "dl",
        { className: "facts" },
        el("dt", {}, "Status"),
        el("dd", {}, el("span", { className: `status-badge status-${status}` }, status)),
        el("dt", {}, "Version"),
        el("dd", {}, asText(health.version) || "—"),
        el("dt", {}, "Uptime"),
        el("dd", {}, fmtDuration(health.uptime_s)),
        el("dt", {}, "Tools"),
        el("dd", {}, String((health.tools || []).length))
      )
    );
    // A refused reload's problems are in `problems` too; they are shown once, in their own block.
    const refused = isPlainObject(health.reload_refused) ? health.reload_refused : null;
    const refusedProblems = refused && Array.isArray(refused.problems) ? refused.problems.map(asText) : [];
    const problems = (health.problems || []).map(asText).filter((p) => !refusedProblems.includes(p));
    if (refused) {
      box.append(
        el(
          "div",
          { className: "refused-reload", role: "status" },
          el("p", {}, el("strong", {}, `The last reload (at ${fmtDate(refused.at)}) was refused; the tools served are the previous ones:`)),
          el("ul", { className: "problems" }, refusedProblems.map((p) => el("li", {}, p))),
          el("p", { className: "muted" }, "Fix the files named above; a server that watches its files reloads on the next change (POST /api/admin/reload asks for one).")
        )
      );
    }
    if (problems.length) box.append(el("h3", {}, refused ? "Other problems" : "Problems"), el("ul", { className: "problems" }, problems.map((p) => el("li", {}, p))));
    else if (!refused) box.append(el("p", { className: "muted" }, "No problems reported."));
  }

  function renderLiveTools(health) {
    const table = $("#live-tools");
    const body = clear(table.tBodies[0]);
    const calls = isPlainObject(health.calls) ? health.calls : {};
    const names = [...new Set([...(health.tools || []), ...Object.keys(calls)])];
    for (const name of names) {
      const entry = calls[name] || {};
      const outcomes = isPlainObject(entry.outcomes) ? entry.outcomes : {};
      const failures = Object.entries(outcomes).filter(([outcome]) => outcome !== "ok");
      const errors = failures.reduce((sum, [, count]) => sum + (Number(count) || 0), 0);
      body.append(
        el(
          "tr",
          { dataset: { tool: name } },
          el("th", { scope: "row" }, name),
          el("td", { className: "num" }, fmtNumber(entry.calls ?? 0)),
          el("td", { className: "num" }, fmtNumber(outcomes.ok ?? 0)),
          el("td", { className: `num${errors ? " error-text" : ""}`, title: failures.length ? failures.map(([o, n]) => `${o}: ${n}`).join("\n") : "no errors" }, String(errors)),
          el("td", { className: "num" }, fmtMs(entry.p50_ms)),
          el("td", { className: "num" }, fmtMs(entry.p95_ms))
        )
      );
    }
    if (!names.length) body.append(placeholderRow(table, "No tools."));
  }

  async function refreshLive() {
    const button = $("#live-refresh");
    button.setAttribute("aria-busy", "true");
    try {
      const health = await api("/health?verbose=1");
      showMessage($("#live-error"), "");
      renderLiveStatus(health);
      renderLiveTools(health);
      $("#live-updated").textContent = `Last refreshed ${new Date().toLocaleTimeString()}`;
    } catch (error) {
      showMessage($("#live-error"), `${error.message} (last attempt ${new Date().toLocaleTimeString()})`);
    } finally {
      button.setAttribute("aria-busy", "false");
    }
  }

  /** Polls with a timeout chain (not setInterval), so a slow answer never stacks requests. */
  function scheduleLive() {
    stopLive();
    state.liveTimer = setTimeout(async () => {
      if (state.activeTab !== "live") return;
      if (document.visibilityState === "visible") await refreshLive();
      if (state.activeTab === "live") scheduleLive();
    }, LIVE_INTERVAL_MS);
  }

  function stopLive() {
    clearTimeout(state.liveTimer);
    state.liveTimer = null;
  }

  function initLivePanel() {
    $("#live-refresh").addEventListener("click", refreshLive);
    tabHooks.live = {
      show: () => {
        refreshLive();
        scheduleLive();
      },
      hide: stopLive,
    };
  }

  /* ------------------------------------------------------------------ start-up */

  /** Adds a line to the page-wide error banner (info and tools load in parallel; keep both messages). */
  function appError(text) {
    const banner = $("#app-error");
    showMessage(banner, banner.hidden ? text : `${banner.textContent}\n${text}`);
  }

  async function loadInfo() {
    try {
      const info = await api("/api/console/info");
      state.info = info;
      $("#server-version").textContent = info.version ? `v${info.version}` : "—";
      $("#server-tier").textContent = info.tier ? `tier: ${info.tier}` : "—";
      if (info.token_required && !getToken()) $("#auth-banner").hidden = false;
    } catch (error) {
      $("#server-version").textContent = "—";
      $("#server-tier").textContent = "—";
      appError(`Could not read the server's info: ${error.message}`);
    } finally {
      applyWritePermissions();
    }
  }

  async function loadTools() {
    try {
      const data = await api("/api/console/tools");
      state.tools = Array.isArray(data.tools) ? data.tools : [];
      state.toolsByName = new Map(state.tools.map((tool) => [tool.name, tool]));
      renderToolList();
      if (!state.tools.length) $("#tool-description").textContent = "The server serves no tools.";
    } catch (error) {
      clear($("#tool-select")).append(el("option", { value: "" }, "Could not load tools"));
      appError(`Could not load the tools: ${error.message}`);
    }
  }

  async function loadAll() {
    showMessage($("#app-error"), "");
    await Promise.all([loadInfo(), loadTools()]);
  }

  function initToken() {
    const input = $("#token");
    input.value = getToken();
    input.addEventListener("input", () => setToken(input.value.trim())); // used by the very next call
    // On a new token: hide the banner (a later 401 shows it again) and reload what may have failed.
    input.addEventListener("change", () => {
      setToken(input.value.trim());
      $("#auth-banner").hidden = true;
      loadAll();
      const hook = tabHooks[state.activeTab];
      if (hook?.show && state.activeTab !== "live") hook.show();
    });
    $("#auth-focus").addEventListener("click", () => input.focus());
  }

  function start() {
    initToken();
    initToolsPanel();
    initComparePanel();
    initCollectionsPanel();
    initEvaluationsPanel();
    initJudgePanel();
    initLivePanel();
    initTabs();
    loadAll();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
