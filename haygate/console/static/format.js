/* Pure text helpers: what a value reads as, numbers, sizes, dates and durations, quoting. No DOM, so Node's test
 * runner imports this module as it is (tests/js/), and no imports, so the MCP Apps results view inlines it
 * (haygate/server/apps/__init__.py builds that page). */

/** A field counts as present when it is set and not an empty string. */
export const present = (value) => value !== undefined && value !== null && value !== "";

/** The first of `keys` whose value in `row` is present. */
export function firstPresent(row, keys) {
  for (const key of keys) if (row && present(row[key])) return row[key];
  return undefined;
}

export function asText(value) {
  if (!present(value)) return "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

export const isPlainObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

/** A number with `digits` significant digits at most; a whole number as it is; "—" for anything else. */
export function fmtNumber(value, digits = 4) {
  if (typeof value !== "number" || !Number.isFinite(value)) return "—";
  if (Number.isInteger(value)) return String(value);
  return String(Number(value.toPrecision(digits)));
}

export const fmtFixed = (value, digits = 4) => (typeof value === "number" ? value.toFixed(digits) : "—");
export const fmtMs = (value) => fmtFixed(value, 1);

export function fmtBytes(bytes) {
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

export function fmtDate(iso) {
  if (!iso) return "—";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleString();
}

export function fmtDuration(seconds) {
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

export const pretty = (value) => JSON.stringify(value, null, 2);

export const clip = (text, limit) => (text.length > limit ? `${text.slice(0, limit)}…` : text);

/** One word for a POSIX shell: single-quoted, each ' written as '\''. */
export const shellQuote = (text) => `'${text.replace(/'/g, `'\\''`)}'`;
