/* The API client: the bearer token (kept for this browser tab), fetch with JSON in and out, and the server's
 * error envelope as an ApiError. A 401 shows the page's token banner. */

import { $ } from "./dom.js";
import { present } from "./format.js";

const TOKEN_KEY = "haygate-token";

export function getToken() {
  try {
    return sessionStorage.getItem(TOKEN_KEY) || "";
  } catch {
    return ""; // storage can be disabled; the console still works without a token
  }
}

export function setToken(token) {
  try {
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    /* ignore: see getToken */
  }
}

export function authHeaders(headers = {}) {
  const token = getToken();
  return token ? { ...headers, Authorization: `Bearer ${token}` } : { ...headers };
}

/** An API failure carrying the server's error envelope (or a synthetic one for network failures). */
export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details || {};
  }
}

export function errorFromBody(status, body, fallbackText) {
  const envelope = body && typeof body === "object" ? body.error : null;
  if (envelope && typeof envelope === "object") {
    return new ApiError(status, envelope.code || `HTTP_${status}`, envelope.message || `HTTP ${status}`, envelope.details);
  }
  const text = (fallbackText || "").trim().slice(0, 200);
  return new ApiError(status, `HTTP_${status}`, `HTTP ${status}${text ? `: ${text}` : ""}`, {});
}

export function noteStatus(status) {
  if (status === 401) $("#auth-banner").hidden = false;
}

/** The JSON of a body: null when it is empty, undefined when it is not JSON. */
export function parseJson(text) {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return undefined;
  }
}

/** fetch() with the token, JSON in and out; throws ApiError on any failure. */
export async function api(path, { method = "GET", body } = {}) {
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
export async function apiBlob(path) {
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

export const enc = encodeURIComponent;

/** The field problems of an error envelope: details.errors[], or a single details.field. */
export function fieldProblems(error) {
  const details = error.details || {};
  if (Array.isArray(details.errors)) {
    return details.errors.map((item) => ({ field: String(item.field ?? ""), message: item.message || item.msg || error.message, location: item.location }));
  }
  if (present(details.field)) return [{ field: String(details.field), message: details.message || error.message }];
  return [];
}

/** "label: message", then each field problem that says more than the message, one a line. */
export function errorText(label, error) {
  const problems = fieldProblems(error).map((p) => `${p.field || "arguments"}: ${p.message}`);
  return [`${label}: ${error.message}`, ...problems.filter((text) => !text.endsWith(`: ${error.message}`))].join("\n");
}
