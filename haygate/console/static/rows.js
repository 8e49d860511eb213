/* A tool result's ranked rows as the panels read them, whatever the tool names its fields: which list holds the
 * rows, what a row's title, excerpt, score and id are, and the provenance of its rank. Pure, no DOM. */

import { asText, firstPresent, fmtNumber, isPlainObject } from "./format.js";

export const TITLE_KEYS = ["title", "name", "summary", "key", "candidate_id", "id"];
export const EXCERPT_KEYS = ["snippet", "excerpt", "text", "content", "summary", "description"];
export const SCORE_KEYS = ["score", "match_score"];
export const ROW_ID_KEYS = ["id", "key", "candidate_id", "entity_id"];

/** The result's ranked rows: "results" when it is a list, else the first array of objects. */
export function resultRows(result) {
  if (!isPlainObject(result)) return [];
  if (Array.isArray(result.results)) return result.results;
  const arrays = Object.values(result).filter(Array.isArray);
  return arrays.find((list) => list.length && list.every(isPlainObject)) || arrays[0] || [];
}

export const rowTitle = (row) => asText(firstPresent(row, TITLE_KEYS)) || "(untitled)";
export const rowKey = (row) => asText(firstPresent(row, ROW_ID_KEYS)) || rowTitle(row);

/** The largest rank any source gave, so bars can be scaled against the same length. */
export function maxRank(provenance, rowCount) {
  let max = rowCount;
  for (const entry of provenance || []) {
    if (entry) max = Math.max(max, entry.dense_rank || 0, entry.sparse_rank || 0);
  }
  return Math.max(max, 1);
}

/** "dense #2 (0.81) · BM25 #1 · fused 0.0325 · rerank —": where a row's rank came from. */
export function provenanceLine(entry) {
  const dense = entry.dense_rank != null ? `dense #${entry.dense_rank}${entry.dense_score != null ? ` (${fmtNumber(entry.dense_score, 2)})` : ""}` : "dense —";
  const sparse = entry.sparse_rank != null ? `BM25 #${entry.sparse_rank}` : "BM25 —";
  const fused = `fused ${entry.fused_score != null ? fmtNumber(entry.fused_score, 3) : "—"}`;
  const rerank = `rerank ${entry.rerank_score != null ? fmtNumber(entry.rerank_score, 3) : "—"}`;
  return [dense, sparse, fused, rerank].join(" · ");
}

/** How far a row moved between two rankings: "▲2" up, "▼1" down, "=" the same, "new" when it was not in the
 *  first; `kind` names it for the page's styles. */
export function rankChange(before, now) {
  if (before < 0) return { change: "new", kind: "new" };
  const moved = before - now; // positive: moved up
  if (moved > 0) return { change: `▲${moved}`, kind: "up" };
  if (moved < 0) return { change: `▼${-moved}`, kind: "down" };
  return { change: "=", kind: "same" };
}
