/* The Live panel: the server's health, its problems (a refused reload's among them) and each tool's calls,
 * polled every few seconds while the panel is open and the page visible. */

import { api } from "./api.js";
import { $, clear, el, placeholderRow, showMessage } from "./dom.js";
import { asText, fmtDate, fmtDuration, fmtMs, fmtNumber, isPlainObject } from "./format.js";
import { state } from "./state.js";
import { tabHooks } from "./tabs.js";

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

export function initLivePanel() {
  $("#live-refresh").addEventListener("click", refreshLive);
  tabHooks.live = {
    show: () => {
      refreshLive();
      scheduleLive();
    },
    hide: stopLive,
  };
}
