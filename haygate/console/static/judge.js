/* The Judge panel: grading a tool's results query by query (0–3, from the keyboard too) into a judged set under
 * the project's evaluation folder, which `haygate eval --judged` reads. */

import { api, enc, errorText } from "./api.js";
import { $, $$, clear, el, setBusy, showMessage } from "./dom.js";
import { asText, firstPresent, fmtMs, fmtNumber, isPlainObject } from "./format.js";
import { appendMarkdown } from "./markdown.js";
import { EXCERPT_KEYS, resultRows, rowTitle } from "./rows.js";
import { propertyType } from "./schema.js";
import { state } from "./state.js";
import { tabHooks } from "./tabs.js";

// As the server checks them (haygate/server/judging.py); checked here too, to say so beside the field.
export const SET_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const SPLIT_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;
export const QUERY_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;
const GRADE_SHORT = ["not relevant", "partly", "relevant", "exact"];
const GRADE_LONG = ["not relevant", "partly relevant", "relevant", "exactly what was asked"];
const JUDGE_EXCERPT_LIMIT = 280;
const NEW_SET = ""; // the set picker's value for "a new set"
const RATER_KEY = "haygate-rater"; // the rater's name, kept in this browser
export const RATER = /^\S([^\t\r\n]{0,62}\S)?$/; // as the server checks it (haygate/gateway/judged_sets.py)

const judge = {
  folder: "evaluation", // where the sets are, relative to the project (GET /judged says)
  sets: [],
  listed: false,
  set: null, // {name, tool, level, split, saved}
  queries: [], // [{id, text, arguments}]
  grades: {}, // query id -> judged id -> 0..3: the set's grade, the last given
  raters: {}, // query id -> judged id -> rater -> 0..3: who gave which grade
  pooled: {}, // query id -> judged id -> the rankings whose top k pooled it
  agreement: [], // each pair of raters' kappas, as the server last worked them out
  rater: "", // who is grading: their grades alone are shown
  pool: null, // {depth, sources, pipelines} while pooling, else null
  seen: {}, // query id -> judged ids in the order the tool ranked them when last saved
  loaded: {}, // query id -> {items, order, skipped}: the results of this page's last run
  selected: null,
  focus: 0, // index of the current result (roving tabindex)
  revision: 0, // bumped by every change; saved when it equals savedRevision
  savedRevision: 0,
  runTicket: 0,
  expanded: new Set(), // judged ids whose whole section (or record) is shown
  wholes: new Map(), // level + judged id -> a promise of its documents (see wholeOf)
  collections: null, // a promise of the collections the server lists, asked once per page
  collectionOf: {}, // tool -> the collection that held the last whole section looked up
};

const judgeDirty = () => judge.set !== null && judge.revision !== judge.savedRevision;

/** The grades shown for a query: the rater's own while one is named (the others' stay hidden), else the set's. */
export function shownGrades(queryId) {
  if (!judge.rater) return judge.grades[queryId] || {};
  const shown = {};
  for (const [judgedId, given] of Object.entries(judge.raters[queryId] || {})) {
    if (given[judge.rater] !== undefined) shown[judgedId] = given[judge.rater];
  }
  return shown;
}

/** What a result row is graded as: its record (level record) or its section, the chunk suffix removed. */
export function judgedIdOf(row, entry, level) {
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

export function renderJudgeTools() {
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
  judge.raters = isPlainObject(data.raters) ? structuredClone(data.raters) : {};
  judge.pooled = isPlainObject(data.pooled) ? structuredClone(data.pooled) : {};
  judge.agreement = Array.isArray(data.agreement) ? data.agreement : [];
  renderAgreement();
  judge.loaded = {};
  judge.expanded = new Set();
  judge.wholes = new Map();
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

/** The next free id of the form q<n>: one more than the highest taken. */
export function nextQueryId(queries) {
  let highest = 0;
  for (const query of queries) {
    const match = /^q(\d+)$/.exec(query.id);
    if (match) highest = Math.max(highest, Number(match[1]));
  }
  return `q${highest + 1}`;
}

/** "3 graded · 2 unjudged" among the results last run; before a run, the grades the query has. */
function queryCounts(queryId) {
  const grades = shownGrades(queryId);
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
  const id = typedId || nextQueryId(judge.queries);
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
  delete judge.raters[queryId];
  delete judge.pooled[queryId];
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
export function rankedResults(data, level) {
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
    items.push({ row, judgedId, first, rank: index + 1, provenance: provenance[index] || null, collections: Array.isArray(data.collections) ? data.collections : [] });
  });
  return { items, order, skipped };
}

/** A pool's results as the list shows them (each once, in the pool's order: no ranking's), with what the pool
 *  was: its rankings and those that could not run. `served` is the tool's own ranking, kept as the one seen. */
export function pooledResults(data) {
  const results = (Array.isArray(data.results) ? data.results : []).filter(isPlainObject);
  const collections = Array.isArray(data.collections) ? data.collections : [];
  const items = results.map((result, index) => ({
    row: isPlainObject(result.row) ? result.row : {},
    judgedId: asText(result.judged_id),
    first: true,
    rank: index + 1,
    provenance: { id: asText(result.document_id), record_id: result.record_id ?? null },
    collections,
  }));
  const rankings = isPlainObject(data.rankings) ? data.rankings : {};
  return {
    items,
    order: items.map((item) => item.judgedId),
    skipped: Number.isInteger(data.unjudgeable) ? data.unjudgeable : 0, // said under the list, as a call's are
    served: Array.isArray(rankings.served) ? rankings.served.map(asText) : null,
    pool: { rankings: Object.keys(rankings), depth: data.depth, unavailable: isPlainObject(data.unavailable) ? data.unavailable : {} },
  };
}

/** The rankings each pooled result came from, added to what the set holds of the query (saved with it). */
function keepPooled(queryId, data) {
  const kept = (judge.pooled[queryId] ||= {});
  for (const result of (Array.isArray(data.results) ? data.results : []).filter(isPlainObject)) {
    const id = asText(result.judged_id);
    kept[id] = [...new Set([...(kept[id] || []), ...(Array.isArray(result.rankings) ? result.rankings.map(asText) : [])])];
  }
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
    const args = { query: query.text, ...(query.arguments || {}) };
    const pool = judge.pool;
    const data = pool
      ? await api("/api/operations/pool", { method: "POST", body: { tool: set.tool, arguments: args, level: set.level, ...pool } })
      : await api("/api/console/call", { method: "POST", body: { tool: set.tool, arguments: args, pipeline: null } });
    if (judge.set !== set) return; // another set was opened meanwhile
    judge.loaded[queryId] = pool ? pooledResults(data) : rankedResults(data, set.level);
    judge.loaded[queryId].elapsed = data.elapsed_ms;
    if (pool) keepPooled(queryId, data);
    if (judge.selected === queryId) announce(`Query ${queryId}: ${judge.loaded[queryId].items.length} results, ${unjudgedText(queryId)}.`);
  } catch (error) {
    if (ticket === judge.runTicket && judge.selected === queryId) showMessage($("#judge-run-error"), errorText(`Query ${queryId}`, error));
  } finally {
    if (ticket === judge.runTicket) setBusy(button, $("#judge-run-status"), false);
    button.disabled = !judge.selected;
  }
  if (judge.selected === queryId) renderResults();
  updateQueryCounts(queryId);
}

export function gradeText(grade) {
  return grade === undefined ? "Not judged yet" : `Grade ${grade}: ${GRADE_LONG[grade]}`;
}

/** The 0–3 buttons (aria-pressed says which is set), a Clear button and the grade in words. */
function gradeControls(queryId, judgedId, label, stateId) {
  const grade = shownGrades(queryId)[judgedId];
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
  const graded = shownGrades(queryId)[judgedId] !== undefined;
  const wholeId = `judge-whole-${index}`;
  const whole = el("div", { id: wholeId, className: "judge-whole", role: "region", "aria-label": `The whole ${judge.set.level} of ${title}`, hidden: true });
  const toggle = el("button", { type: "button", className: "button-light whole-toggle", "aria-expanded": "false", "aria-controls": wholeId, title: `The whole ${judge.set.level} this result is graded as (key e)` }, `Whole ${judge.set.level}`);
  toggle.addEventListener("click", () => toggleWhole(item, toggle, whole));
  const li = el(
    "li",
    { className: `judge-result${graded ? "" : " unjudged"}`, tabIndex: -1, value: item.rank, dataset: { judged: judgedId, index: String(index) }, "aria-labelledby": titleId, "aria-describedby": stateId },
    el("div", { className: "result-head" }, el("span", { className: "result-title", id: titleId }, title), item.first && !loaded.pool ? rankMove(judgedId, loaded.order, judge.seen[queryId]) : null),
    el(
      "div",
      { className: "judged-id" },
      "judged as ",
      el("code", {}, judgedId),
      item.first ? null : el("span", { className: "muted" }, ` · the same ${judge.set.level} as #${firstItem.rank}: one grade for both`)
    ),
    excerpt ? appendMarkdown(el("div", { className: "result-excerpt" }), excerpt, { limit: JUDGE_EXCERPT_LIMIT }) : null,
    el("div", { className: "whole-bar" }, toggle),
    whole,
    gradeControls(queryId, judgedId, title, stateId)
  );
  if (judge.expanded.has(judgedId)) showWhole(item, toggle, whole); // as it was before the list was drawn again
  li.addEventListener("focusin", () => {
    judge.focus = index;
    setRovingFocus();
  });
  return li;
}

/* -- a result's whole section (or record) */

const sectionOf = (documentId) => documentId.replace(/#chunk\d+$/, "");

/** The collections the server lists (the healthy ones), asked once per page. */
function listedCollections() {
  if (!judge.collections) {
    judge.collections = api("/health?verbose=1").then(
      (health) => Object.entries(isPlainObject(health.collections) ? health.collections : {}).filter(([, entry]) => !entry?.error).map(([name]) => name).sort(),
      (error) => {
        judge.collections = null; // asked again next time
        throw error;
      }
    );
  }
  return judge.collections;
}

/** The documents of the section (or record) a result is graded as, whole and in order, read as the Collections
 *  tab reads a record. The call's answer names the collections the tool reads; those are asked first, then (for a
 *  tool whose answer names none) the others; the one whose record holds the result's own document is it. Null
 *  when none holds the record. */
async function readWhole(item, level, tool) {
  const row = isPlainObject(item.row) ? item.row : {};
  const documentId = asText(item.provenance?.id) || asText(row.id);
  const recordId = asText(item.provenance?.record_id) || asText(row.record_id) || item.judgedId;
  const own = (item.collections || []).filter((name) => typeof name === "string");
  const names = own.length ? [...own, ...(await listedCollections()).filter((name) => !own.includes(name))] : await listedCollections();
  const known = own[0] || judge.collectionOf[tool];
  let found = null; // a record of that id, in a collection that does not hold the result's document
  for (const name of names.includes(known) ? [known, ...names.filter((other) => other !== known)] : names) {
    let data;
    try {
      data = await api(`/api/console/collections/${enc(name)}/records/${enc(recordId)}`);
    } catch (error) {
      if (error.status === 404) continue;
      throw error;
    }
    const documents = (Array.isArray(data.documents) ? data.documents : []).filter(isPlainObject);
    const whole = { collection: name, recordId, documentId, documents };
    if (documents.some((doc) => asText(doc.id) === documentId)) {
      found = whole;
      break;
    }
    found ||= whole;
  }
  if (!found) return null;
  judge.collectionOf[tool] = found.collection;
  const mine = level === "record" ? found.documents : found.documents.filter((doc) => sectionOf(asText(doc.id)) === item.judgedId);
  return { ...found, documents: mine.length ? mine : found.documents };
}

/** The whole section of a result, read once per set (a failed read is tried again next time). */
function wholeOf(item) {
  const key = `${judge.set.level}\u0000${item.judgedId}`;
  if (!judge.wholes.has(key)) {
    const reading = readWhole(item, judge.set.level, judge.set.tool);
    reading.catch(() => judge.wholes.delete(key));
    judge.wholes.set(key, reading);
  }
  return judge.wholes.get(key);
}

function renderWhole(region, item, whole) {
  const level = judge.set.level;
  if (!whole) {
    const row = isPlainObject(item.row) ? item.row : {};
    const text = asText(firstPresent(row, ["text", "content"]));
    region.replaceChildren(
      el("p", { className: "muted" }, `No collection holds the ${level} ${item.judgedId}: ${text ? "this result's own text." : "nothing more to show."}`),
      text ? appendMarkdown(el("div", { className: "whole-document" }), text) : ""
    );
    return;
  }
  const count = whole.documents.length;
  region.replaceChildren(
    el("p", { className: "whole-where muted" }, `The ${level} `, el("code", {}, item.judgedId), ` · record ${whole.recordId} in ${whole.collection} · ${count} document${count === 1 ? "" : "s"}`),
    ...whole.documents.map((doc) =>
      appendMarkdown(el("div", { className: `whole-document${asText(doc.id) === whole.documentId ? " matched" : ""}`, dataset: { id: asText(doc.id) }, title: asText(doc.id) }), asText(doc.content))
    )
  );
}

async function showWhole(item, toggle, region) {
  toggle.setAttribute("aria-expanded", "true");
  toggle.textContent = `Hide the whole ${judge.set.level}`;
  region.hidden = false;
  if (region.dataset.shown === item.judgedId) return;
  region.replaceChildren(el("p", { className: "muted" }, `Reading the whole ${judge.set.level}…`));
  region.setAttribute("aria-busy", "true");
  try {
    renderWhole(region, item, await wholeOf(item));
    region.dataset.shown = item.judgedId;
  } catch (error) {
    region.replaceChildren(el("p", { className: "error-text", role: "alert" }, `Could not read the whole ${judge.set.level}: ${error.message}`));
  } finally {
    region.setAttribute("aria-busy", "false");
  }
}

function hideWhole(toggle, region) {
  toggle.setAttribute("aria-expanded", "false");
  toggle.textContent = `Whole ${judge.set.level}`;
  region.hidden = true;
}

function toggleWhole(item, toggle, region) {
  const open = toggle.getAttribute("aria-expanded") !== "true";
  if (open) judge.expanded.add(item.judgedId);
  else judge.expanded.delete(item.judgedId);
  if (open) showWhole(item, toggle, region);
  else hideWhole(toggle, region);
}

/** The focused result's whole section, shown or hidden (key e). */
function toggleFocusedWhole() {
  const shown = document.activeElement?.closest?.("#judge-results .judge-result") || resultItems()[judge.focus];
  const toggle = shown && $(".whole-toggle", shown);
  if (!toggle) return false;
  toggle.click();
  return true;
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
  if (loaded.pool) line.append(el("span", { className: "pool-line" }, ` · ${poolText(loaded)}`));
  loaded.items.forEach((item, index) => list.append(judgeResultItem(query.id, item, index, loaded)));
  if (!loaded.items.length) list.append(el("li", { className: "empty" }, loaded.skipped ? `No result carries an id to grade (${loaded.skipped} rows).` : "No results."));
  else if (loaded.skipped) list.append(el("li", { className: "empty" }, `${loaded.skipped} row${loaded.skipped === 1 ? "" : "s"} without an id to grade left out.`));
  judge.focus = Math.min(judge.focus, Math.max(0, loaded.items.length - 1));
  setRovingFocus();
  renderUnjudgedCount(query.id);
  renderGone(query.id, loaded);
}

/** What a pooled list is: its rankings and their depth, and those that could not run (with why). */
export function poolText(loaded) {
  const { rankings, depth, unavailable } = loaded.pool;
  const missing = Object.entries(unavailable).map(([name, why]) => `${name} could not run: ${why}`);
  return `a pool of ${rankings.length} ranking${rankings.length === 1 ? "" : "s"} (${rankings.join(", ")}), the top ${depth} of each: ${loaded.items.length} results, in an order that does not say which ranking found them${missing.length ? `. ${missing.join("; ")}` : ""}`;
}

/** "k of N unjudged" among the judged ids of the query's results. */
function unjudgedText(queryId) {
  const loaded = judge.loaded[queryId];
  if (!loaded) return "";
  const grades = shownGrades(queryId);
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
  const grades = shownGrades(queryId);
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
  const grade = shownGrades(queryId)[judgedId];
  for (const item of [...$$("#judge-results .judge-result"), ...$$("#judge-gone .judge-gone-item")]) {
    if (item.dataset.judged !== judgedId) continue;
    item.classList.toggle("unjudged", grade === undefined);
    for (const button of $$("button.grade", item)) button.setAttribute("aria-pressed", String(Number(button.dataset.grade) === grade));
    $(".grade-state", item).textContent = gradeText(grade);
  }
  renderUnjudgedCount(queryId);
}

/** A query's grade of one result: the set's, and (with a rater named) the rater's own. Clearing the rater's
 *  grade leaves the set another rater's, if any gave one. */
function setGrade(queryId, judgedId, grade) {
  const current = shownGrades(queryId)[judgedId];
  if (current === grade) return;
  let setValue = grade;
  if (judge.rater) {
    const given = ((judge.raters[queryId] ||= {})[judgedId] ||= {});
    if (grade === undefined) delete given[judge.rater];
    else given[judge.rater] = grade;
    if (grade === undefined) setValue = Object.values(given)[0];
    if (!Object.keys(given).length) delete judge.raters[queryId][judgedId];
    if (!Object.keys(judge.raters[queryId]).length) delete judge.raters[queryId];
  }
  if (setValue === undefined) {
    if (judge.grades[queryId]) delete judge.grades[queryId][judgedId];
    if (judge.grades[queryId] && !Object.keys(judge.grades[queryId]).length) delete judge.grades[queryId];
  } else {
    if (!judge.grades[queryId]) judge.grades[queryId] = {};
    judge.grades[queryId][judgedId] = setValue;
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
  else if (key === "e") handled = toggleFocusedWhole();
  else if (key === "n" || key === "p") {
    stepQuery(key === "n" ? 1 : -1);
    handled = true;
  }
  if (handled) event.preventDefault();
}

/* -- raters and their agreement */

function readRater() {
  try {
    return localStorage.getItem(RATER_KEY) || "";
  } catch {
    return "";
  }
}

/** A new rater's grades are theirs alone: the list shows them, the others' are hidden until the name is cleared. */
function changeRater() {
  const input = $("#judge-rater");
  const name = input.value.trim();
  if (name && !RATER.test(name)) {
    input.setAttribute("aria-invalid", "true");
    return showMessage($("#judge-error"), "A rater's name is up to 64 characters, with no tab or line break.");
  }
  input.removeAttribute("aria-invalid");
  if (name === judge.rater) return; // a change event on leaving the box, after the one on Enter
  judge.rater = name;
  try {
    if (name) localStorage.setItem(RATER_KEY, name);
    else localStorage.removeItem(RATER_KEY);
  } catch {
    /* storage can be disabled: the name lasts as long as the page */
  }
  announce(name ? `Grading as ${name}: only your grades are shown.` : "No rater named: the set's grades are shown.");
  if (judge.set) {
    renderQueryList();
    renderResults();
  }
}

/** "alice and bob both graded 12 results: κ 0.61 ..." for each pair of raters, after the last open or save. */
export function agreementText(pairs) {
  const fmt = (value) => (value === null || value === undefined ? "undefined" : Number(value).toFixed(2));
  return pairs
    .map((pair) => `${pair.raters.join(" and ")} both graded ${pair.results} result${pair.results === 1 ? "" : "s"} and gave ${Math.round(pair.agreed * 100)}% the same grade: Cohen's κ ${fmt(pair.kappa)} on the grades, ${fmt(pair.weighted_kappa)} weighted (near grades agree in part), ${fmt(pair.relevant_kappa)} on relevant or not; ${pair.reading}.`)
    .join(" ");
}

function renderAgreement() {
  const box = $("#judge-agreement");
  const raters = new Set(Object.values(judge.raters).flatMap((judged) => Object.values(judged).flatMap((given) => Object.keys(given))));
  box.hidden = !raters.size;
  if (!raters.size) return;
  box.textContent = judge.agreement.length
    ? `Agreement (as saved): ${agreementText(judge.agreement)}`
    : `Graded by ${[...raters].join(", ")}: a second rater's grades of the same results, saved, show how far raters agree.`;
}

/* -- pooling */

async function loadPoolPipelines() {
  if (state.pipelines) return fillPoolPipelines();
  try {
    const data = await api("/api/console/pipelines");
    state.pipelines = Array.isArray(data.pipelines) ? data.pipelines : [];
  } catch (error) {
    showMessage($("#judge-error"), `Pipelines: ${error.message}`);
    return;
  }
  fillPoolPipelines();
}

function fillPoolPipelines() {
  const select = $("#judge-pool-pipelines");
  const chosen = new Set([...select.selectedOptions].map((option) => option.value));
  clear(select);
  for (const path of state.pipelines || []) select.append(el("option", { value: path, selected: chosen.has(path) }, path));
}

/** The pool the next runs ask for, from the form; every query runs again, as a pool or as the served ranking. */
function changePool() {
  const depth = Math.round(Number($("#judge-pool-depth").value));
  const sources = [...($("#judge-pool-dense").checked ? ["dense"] : []), ...($("#judge-pool-bm25").checked ? ["bm25"] : [])];
  const pipelines = [...$("#judge-pool-pipelines").selectedOptions].map((option) => option.value).slice(0, 8);
  judge.pool = $("#judge-pool").checked ? { depth: Math.min(50, Math.max(1, depth || 10)), sources, pipelines } : null;
  judge.loaded = {};
  if (judge.set) {
    renderQueryList();
    if (judge.selected) selectQuery(judge.selected);
  }
}

/* -- saving */

/** The command that evaluates a saved set; the split is named unless it is the default, test. */
export function judgeCommand(folder, set) {
  return `haygate eval --judged ${folder}/${set.name}${set.split === "test" ? "" : ` --split ${set.split}`}`;
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
    // A query not run on this page keeps the ranking saved before; a pooled run's is the served ranking in it.
    const loaded = judge.loaded[query.id];
    const ranking = (loaded && (loaded.pool ? loaded.served : loaded.order)) || judge.seen[query.id];
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
    // every query's whole state, an empty one included: a rater's grades all cleared are cleared on disk too
    pooled: Object.fromEntries(judge.queries.map((q) => [q.id, judge.pooled[q.id] || {}])),
    raters: Object.fromEntries(judge.queries.map((q) => [q.id, judge.raters[q.id] || {}])),
  };
  const revision = judge.revision;
  showMessage(errorBox, "");
  setBusy(button, status, true, "Saving…");
  let answer;
  try {
    answer = await api(`/api/console/judged/${enc(set.name)}`, { method: "PUT", body });
  } catch (error) {
    showMessage(errorBox, errorText("Not saved", error));
    return;
  } finally {
    setBusy(button, status, false);
  }
  if (judge.set !== set) return;
  judge.savedRevision = revision; // changes made while saving stay unsaved
  judge.seen = seen;
  judge.agreement = Array.isArray(answer.agreement) ? answer.agreement : [];
  renderAgreement();
  set.saved = true;
  renderJudgeHeader();
  renderDirty();
  const hadFocus = document.activeElement?.closest?.("#judge-results .judge-result") ? judge.focus : null;
  renderResults(); // the rank moves are now against this save
  if (hadFocus !== null) focusResult(hadFocus);
  $("#judge-saved-folder").textContent = `${judge.folder}/${set.name}/`;
  $("#judge-command").textContent = judgeCommand(judge.folder, set);
  $("#judge-saved").hidden = judgeDirty();
  status.textContent = `Saved ${fmtNumber(answer.queries)} quer${answer.queries === 1 ? "y" : "ies"} and ${fmtNumber(answer.judged)} grade${answer.judged === 1 ? "" : "s"} at ${new Date().toLocaleTimeString()}.`;
  loadJudgedSets(); // a new set joins the list
}

export function initJudgePanel() {
  $("#judge-refresh").addEventListener("click", loadJudgedSets);
  $("#judge-set").addEventListener("change", updateSetForm);
  $("#judge-open-form").addEventListener("submit", openJudgedSet);
  $("#judge-start").addEventListener("click", startNewSet);
  $("#judge-add-form").addEventListener("submit", addQuery);
  $("#judge-run").addEventListener("click", () => judge.selected && runQuery(judge.selected));
  $("#judge-save").addEventListener("click", saveJudgedSet);
  $("#judge-rater").value = readRater();
  judge.rater = RATER.test($("#judge-rater").value) ? $("#judge-rater").value : "";
  $("#judge-rater").addEventListener("change", changeRater);
  for (const id of ["#judge-pool", "#judge-pool-depth", "#judge-pool-dense", "#judge-pool-bm25", "#judge-pool-pipelines"]) $(id).addEventListener("change", changePool);
  document.addEventListener("keydown", onJudgeKey);
  window.addEventListener("beforeunload", (event) => {
    if (!judgeDirty()) return;
    event.preventDefault();
    event.returnValue = "unsaved"; // some browsers ask only when this is a non-empty string (never shown)
  });
  tabHooks.judge = {
    show: () => {
      renderJudgeTools();
      loadPoolPipelines();
      if (!judge.listed) loadJudgedSets();
    },
    canLeave: () => !judgeDirty() || confirm(`The judged set “${judge.set.name}” has unsaved changes (not on disk until saved). Leave the Judge tab anyway?`),
  };
}
