/* haygate console: vanilla ES modules, loaded by the browser as they are (no build step). This one starts the
 * page: the token, each panel (a module of its own), the tabs, then the server's info and tools.
 *
 * The modules: dom.js (building nodes), format.js and markdown.js (text helpers and a result's Markdown, shared
 * with the MCP Apps view), api.js (the client), state.js, tabs.js, rows.js and schema.js (reading results and
 * input schemas), then one per panel: tools.js, compare.js, collections.js, evaluations.js, judge.js, live.js.
 * Server data reaches the page through textContent / DOM nodes, never through innerHTML; a result's Markdown
 * through markdown.js alone, which renders it with markdown-it (HTML escaped, links checked) in an inert
 * template and keeps only the elements and attributes it allows.
 */

// markdown-it, vendored as its npm package builds it for browsers (vendor/README.md): it sets
// globalThis.markdownit, which markdown.js reads (a module the view inlines, so it imports nothing).
import "./vendor/markdown-it.umd.min.js";
import { api, getToken, setToken } from "./api.js";
import { applyWritePermissions, initCollectionsPanel } from "./collections.js";
import { initComparePanel, updateCompareDefaults } from "./compare.js";
import { $, $$, clear, copyText, el, showMessage } from "./dom.js";
import { initEvaluationsPanel } from "./evaluations.js";
import { initJudgePanel, renderJudgeTools } from "./judge.js";
import { initLivePanel } from "./live.js";
import { state } from "./state.js";
import { initTabs, tabHooks } from "./tabs.js";
import { initToolsPanel, selectTool, toolForm } from "./tools.js";

/** Fills every tool picker (Tools, Compare, Judge) from the tool list. */
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


/** Each Copy button copies the text of the element its data-copy names. */
function initCopyButtons() {
  for (const button of $$("button.copy")) {
    button.addEventListener("click", () => copyText($(`#${button.dataset.copy}`).textContent, button));
  }
}

function start() {
  initToken();
  initToolsPanel();
  initCopyButtons();
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
