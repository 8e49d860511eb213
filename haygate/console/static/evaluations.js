/* The Evaluations panel: the reports `haygate eval` wrote, each as its metrics, its comparisons with the
 * baseline, the queries it won and lost, and its plot. */

import { api, apiBlob, enc } from "./api.js";
import { $, $$, clear, el, showMessage } from "./dom.js";
import { asText, fmtDate, fmtFixed, fmtMs, fmtNumber, isPlainObject, present } from "./format.js";
import { state } from "./state.js";
import { tabHooks } from "./tabs.js";

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

export function metricNames(variants) {
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
  const k = variants.find((v) => v.judged_at_k)?.judged_at_k?.k;
  const rows = variants.map((variant) => {
    const isBaseline = variant.name === report.baseline;
    const judged = variant.judged_at_k?.mean;
    return el(
      "tr",
      { className: isBaseline ? "baseline" : "" },
      el("th", { scope: "row", title: variant.pipeline || "" }, variant.name, isBaseline ? el("span", { className: "badge" }, "baseline") : null),
      metrics.map((m) =>
        el(
          "td",
          { className: `num${variant.metrics?.[m] === best[m] ? " best" : ""}`, title: "unjudged results counted as not relevant / left out (condensed list)" },
          fmtFixed(variant.metrics?.[m]),
          typeof variant.condensed?.[m] === "number" ? el("span", { className: "condensed" }, ` / ${fmtFixed(variant.condensed[m])}`) : null
        )
      ),
      k ? el("td", { className: `num judged${typeof judged === "number" && judged < 0.8 ? " low" : ""}` }, typeof judged === "number" ? `${Math.round(judged * 100)}%` : "n/a") : null,
      el("td", { className: "num" }, fmtMs(variant.latency_ms?.p50)),
      el("td", { className: "num" }, fmtMs(variant.latency_ms?.p95))
    );
  });
  const headers = ["Variant", ...metrics.map((m) => ({ text: k ? `${m} (default / condensed)` : m, num: true })), ...(k ? [{ text: `judged@${k}`, num: true }] : []), { text: "p50 ms", num: true }, { text: "p95 ms", num: true }];
  return tableOf("metrics", headers, rows);
}

/** How far the judged set's raters agree, where two graded the same results (report.json's `agreement`). */
function agreementBox(report) {
  const pairs = (Array.isArray(report.agreement) ? report.agreement : []).filter(isPlainObject);
  if (!pairs.length) return null;
  const kappa = (value) => (typeof value === "number" ? value.toFixed(2) : "undefined");
  return el(
    "p",
    { className: "report-agreement muted" },
    pairs
      .map((pair) => `Raters ${(pair.raters || []).map(asText).join(" and ")} graded ${pair.results} results alike ${Math.round(pair.agreed * 100)}% of the time: Cohen's weighted kappa ${kappa(pair.weighted_kappa)} (${asText(pair.reading)}).`)
      .join(" ")
  );
}

/** The report's warnings: a variant whose figures rest on too few judged results, with its least judged queries. */
function warningsBox(report) {
  const warnings = Array.isArray(report.warnings) ? report.warnings : [];
  if (!warnings.length) return null;
  return el("div", { className: "report-warnings", role: "note" }, warnings.map((w) => el("p", { className: "warning-text" }, `Warning: ${asText(w)}`)));
}

function interval(pair, digits = 3) {
  return Array.isArray(pair) ? `[${pair.map((v) => (v > 0 ? "+" : "") + v.toFixed(digits)).join(", ")}]` : "";
}

function comparisonsTable(comparisons) {
  const holm = comparisons.some((c) => typeof c.p_holm === "number");
  const rows = comparisons.map((c) => {
    const delta = typeof c.delta === "number" ? c.delta : null;
    const significant = holm ? c.significant_holm : c.significant;
    return el(
      "tr",
      { className: significant ? "significant" : "" },
      el("th", { scope: "row" }, asText(c.variant)),
      el("td", {}, asText(c.metric)),
      el("td", { className: "num" }, fmtFixed(c.baseline_value)),
      el("td", { className: "num" }, fmtFixed(c.variant_value)),
      el("td", { className: `num ${delta > 0 ? "up" : delta < 0 ? "down" : ""}` }, delta === null ? "—" : `${delta > 0 ? "+" : ""}${delta.toFixed(4)} ${interval(c.delta_interval)}`),
      el("td", { className: "num" }, fmtFixed(c.p_value)),
      holm ? el("td", { className: "num" }, fmtFixed(c.p_holm)) : null,
      holm ? el("td", { className: "num" }, fmtFixed(c.p_randomization)) : null,
      holm ? el("td", { className: "num" }, typeof c.effect_size === "number" ? `${c.effect_size.toFixed(2)} ${interval(c.effect_interval, 2)}` : "n/a") : null,
      el("td", { className: "sig", title: significant ? "significant" : "not significant" }, significant ? "✔ significant" : "—"),
      el("td", { className: "num" }, fmtNumber(c.better)),
      el("td", { className: "num" }, fmtNumber(c.tied)),
      el("td", { className: "num" }, fmtNumber(c.worse))
    );
  });
  const num = (text) => ({ text, num: true });
  const tests = holm ? [num("p (t)"), num("Holm p"), num("p (randomization)"), num("d_z [95% CI]")] : [num("p-value")];
  return tableOf("comparisons", ["Variant", "Metric", num("Baseline"), num("Variant"), num("Delta [95% CI]"), ...tests, holm ? "Significant (Holm)" : "Significant", num("Better"), num("Tied"), num("Worse")], rows);
}

/** Per-query score differences of one variant against the baseline, split into wins and losses. */
export function queryDeltas(baseline, variant, metric) {
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

/** "d3 (grade 2) 7 → 1": how a query's relevant results moved between the two runs. */
function movesText(moves) {
  return (moves || []).slice(0, 3).map((m) => `${m.doc} (grade ${m.grade}) ${m.from ?? "–"} → ${m.to ?? "–"}`).join("; ");
}

function queryItem(entry, queries, variantName, moves) {
  const text = queries?.[entry.queryId];
  const moved = movesText(moves);
  return el(
    "li",
    { dataset: { query: entry.queryId } },
    el("span", { className: "mono" }, entry.queryId),
    present(text) ? el("span", { className: "query-text" }, ` ${asText(text)}`) : null,
    el("span", { className: "scores" }, `baseline ${fmtFixed(entry.base)} → ${variantName} ${fmtFixed(entry.score)} (${entry.delta > 0 ? "+" : ""}${entry.delta.toFixed(4)})`),
    moved ? el("span", { className: "moves" }, ` · ${moved}`) : null
  );
}

function renderQueryLists(report, baseline, variant, metric) {
  const { wins, losses } = queryDeltas(baseline, variant, metric);
  const moves = Object.fromEntries((report.per_query_differences?.[variant.name] || []).map((row) => [row.query, row.moves]));
  const fill = (id, items, none) => {
    const list = clear($(id));
    for (const entry of items) list.append(queryItem(entry, report.queries, variant.name, moves[entry.queryId]));
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
    warningsBox(report) || "",
    agreementBox(report) || "",
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

export function initEvaluationsPanel() {
  $("#evaluations-refresh").addEventListener("click", loadEvaluations);
  // Loaded once (a report stays open while switching tabs); again while the list is empty or failed.
  tabHooks.evaluations = { show: () => $("#evaluations a[data-report]") || loadEvaluations() };
}
