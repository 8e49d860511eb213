/* The Compare panel: the tool as served beside another pipeline of the project, called with the same arguments,
 * each row of the pipeline's list marked with its move against the served one. */

import { api, errorText } from "./api.js";
import { $, clear, el, setBusy, showMessage } from "./dom.js";
import { asText, firstPresent, fmtMs, isPlainObject, present } from "./format.js";
import { appendMarkdown } from "./markdown.js";
import { EXCERPT_KEYS, rankChange, resultRows, rowKey, rowTitle } from "./rows.js";
import { propertyType } from "./schema.js";
import { state } from "./state.js";
import { tabHooks } from "./tabs.js";

const QUERY_KEYS = ["query", "text", "keywords", "topic"];
const COMPARE_EXCERPT_LIMIT = 200;

/** The tool's query-like argument: the first string property among QUERY_KEYS. */
export function queryArgument(tool) {
  const properties = tool?.input_schema?.properties || {};
  return QUERY_KEYS.find((key) => properties[key] && propertyType(properties[key]).type === "string");
}

/** The first example's required arguments, with the query-like one replaced by the typed text. */
export function compareArguments(tool, query) {
  const schema = tool.input_schema || {};
  const example = (tool.examples || [])[0] || {};
  const args = {};
  for (const name of schema.required || []) if (example[name] !== undefined) args[name] = example[name];
  const queryKey = queryArgument(tool);
  if (queryKey && query.trim()) args[queryKey] = query;
  return args;
}

/** Preselects a pipeline named after the tool, preferring a variant to the tool's own file. */
export function preferredPipeline(pipelines, toolName) {
  const matches = (pipelines || []).filter((path) => path.includes(toolName));
  return matches.find((path) => path !== `tools/${toolName}.yaml`) || matches[0] || "";
}

export function updateCompareDefaults() {
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
  if (state.pipelines) $("#compare-pipeline").value = preferredPipeline(state.pipelines, tool.name);
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

function compareItem(row) {
  const key = rowKey(row);
  const excerpt = asText(firstPresent(row, EXCERPT_KEYS));
  return el(
    "li",
    { dataset: { key } },
    el("span", { className: "compare-title" }, rowTitle(row)),
    el("span", { className: "compare-id" }, key),
    excerpt ? appendMarkdown(el("div", { className: "compare-excerpt" }), excerpt, { limit: COMPARE_EXCERPT_LIMIT }) : null
  );
}

/** Renders both lists; the right one marks rank changes against the left, the left marks rows that left. */
function renderComparison(leftRows, rightRows) {
  const leftKeys = leftRows.map(rowKey);
  const rightKeys = rightRows.map(rowKey);
  const left = clear($("#compare-left"));
  const right = clear($("#compare-right"));
  leftRows.forEach((row, index) => {
    const item = compareItem(row);
    if (!rightKeys.includes(leftKeys[index])) item.prepend(el("span", { className: "rank-change gone", title: "not in the pipeline's list" }, "gone"));
    left.append(item);
  });
  rightRows.forEach((row, index) => {
    const item = compareItem(row);
    const before = leftKeys.indexOf(rightKeys[index]);
    const { change, kind } = rankChange(before, index);
    item.prepend(el("span", { className: `rank-change ${kind}`, title: before >= 0 ? `rank ${before + 1} as served` : "not in the served list" }, change));
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
        errors.push(errorText(label, outcome.reason));
      }
    }
    showMessage($("#compare-error"), errors.join("\n"));
    const rows = (outcome) => (outcome.status === "fulfilled" ? resultRows(outcome.value.result).filter(isPlainObject) : []);
    renderComparison(rows(served), rows(variant));
  } finally {
    setBusy(button, $("#compare-status"), false);
  }
}

export function initComparePanel() {
  $("#compare-tool").addEventListener("change", updateCompareDefaults);
  $("#compare-form").addEventListener("submit", runComparison);
  tabHooks.compare = { show: loadPipelines };
}
