/* The Tools panel: a form generated from the chosen tool's input schema, the call, its ranked results with
 * their provenance, the raw result, and the same call as curl and as MCP arguments. */

import { ApiError, api, enc, fieldProblems, getToken } from "./api.js";
import { $, $$, clear, el, setBusy, showMessage } from "./dom.js";
import { asText, firstPresent, fmtMs, fmtNumber, isPlainObject, pretty, present, shellQuote } from "./format.js";
import { appendMarkdown } from "./markdown.js";
import { EXCERPT_KEYS, ROW_ID_KEYS, SCORE_KEYS, maxRank, provenanceLine, resultRows, rowTitle } from "./rows.js";
import { FieldError, boundsText, buildControl, propertyType } from "./schema.js";
import { state } from "./state.js";

const EXCERPT_LIMIT = 600;
const WHOLE_KEYS = ["text", "content"]; // a row's whole text, beside its snippet

export const toolForm = { tool: null, fields: new Map() }; // name -> {read, fill, wrapper}

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

export function selectTool(name) {
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

function renderSnippets(name, args) {
  const headers = ["-H 'content-type: application/json'"];
  // Double quotes so that the shell expands $HAYGATE_TOKEN.
  if (getToken()) headers.push('-H "Authorization: Bearer $HAYGATE_TOKEN"');
  $("#curl").textContent = `curl -s ${location.origin}/api/tools/${enc(name)} ${headers.join(" ")} -d ${shellQuote(JSON.stringify(args))}`;
  $("#mcp-arguments").textContent = pretty({ name, arguments: args });
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

/** The row's whole text (its text or content beside the snippet shown, or an excerpt too long to show whole), in
 *  a disclosure whose Markdown is rendered when it is first opened. */
function wholeText(row, excerptKey, excerpt) {
  const key = WHOLE_KEYS.find((name) => name !== excerptKey && typeof row[name] === "string" && row[name].trim());
  const text = key ? row[key] : excerpt.length > EXCERPT_LIMIT ? excerpt : "";
  if (!text) return null;
  const body = el("div", { className: "result-text" });
  const details = el("details", { className: "result-whole" }, el("summary", {}, key ? `Whole ${key}` : "Whole excerpt"), body);
  details.addEventListener("toggle", () => {
    if (details.open && !body.childNodes.length) appendMarkdown(body, text);
  });
  return details;
}

function renderResultRow(row, entry, scale) {
  const score = firstPresent(row, SCORE_KEYS);
  const excerptKey = EXCERPT_KEYS.find((key) => present(row[key]));
  const excerpt = excerptKey ? asText(row[excerptKey]) : "";
  const id = asText(firstPresent(row, ROW_ID_KEYS));
  return el(
    "li",
    { className: "result" },
    el("div", { className: "result-head" }, el("span", { className: "result-title" }, rowTitle(row)), el("span", { className: "result-score", title: "score" }, score !== undefined ? fmtNumber(Number(score)) : "—")),
    id && id !== rowTitle(row) ? el("div", { className: "result-id" }, id) : null,
    excerpt ? appendMarkdown(el("div", { className: "result-excerpt" }), excerpt, { limit: EXCERPT_LIMIT }) : null,
    wholeText(row, excerptKey, excerpt),
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

export function initToolsPanel() {
  $("#tool-select").addEventListener("change", (event) => selectTool(event.target.value));
  $("#tool-form").addEventListener("submit", callTool);
}
