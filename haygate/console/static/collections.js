/* The Collections panel: what each store holds, browsing a collection's documents and records, uploads (with
 * their progress and reports) and deletes, as far as the server's tier allows. */

import { ApiError, api, authHeaders, enc, errorFromBody, noteStatus, parseJson } from "./api.js";
import { $, clear, el, placeholderRow, setBusy, showMessage } from "./dom.js";
import { asText, clip, fmtBytes, fmtDate, fmtNumber, isPlainObject, present, pretty } from "./format.js";
import { state } from "./state.js";
import { tabHooks } from "./tabs.js";

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

export function metaSummary(meta) {
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
export function uploadContentType(filename) {
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
export function applyWritePermissions() {
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

export function initCollectionsPanel() {
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
