/* A tool's input schema as a form: the type and bounds of a property (pure), and the control that edits it. */

import { el } from "./dom.js";
import { asText, isPlainObject, present, pretty } from "./format.js";

/** The JSON-schema type of a property, ignoring "null", plus whether null was allowed. */
export function propertyType(prop) {
  let branch = prop;
  if (!prop.type && Array.isArray(prop.anyOf)) {
    // pydantic-style Optional[X]: take the first non-null branch
    branch = prop.anyOf.find((item) => item.type !== "null") || {};
  }
  const types = Array.isArray(branch.type) ? branch.type : branch.type ? [branch.type] : [];
  const nullable = (Array.isArray(prop.type) && prop.type.includes("null")) || (Array.isArray(prop.anyOf) && prop.anyOf.some((item) => item.type === "null"));
  const type = types.find((t) => t !== "null") || (prop.enum ? "string" : branch.properties ? "object" : "string");
  return { type, nullable, schema: { ...prop, ...branch } };
}

/** "1–50, default 10" style summary of a property's bounds. */
export function boundsText(prop, type) {
  const parts = [];
  const range = (low, high, unit) => {
    if (present(low) && present(high)) parts.push(`${low}–${high}${unit}`);
    else if (present(low)) parts.push(`≥ ${low}${unit}`);
    else if (present(high)) parts.push(`≤ ${high}${unit}`);
  };
  if (type === "integer" || type === "number") {
    range(prop.minimum ?? prop.exclusiveMinimum, prop.maximum ?? prop.exclusiveMaximum, "");
  } else if (type === "string") range(prop.minLength, prop.maxLength, " characters");
  else if (type === "array") range(prop.minItems, prop.maxItems, " items");
  if (prop.default !== undefined && prop.default !== null) parts.push(`default ${asText(prop.default)}`);
  return parts.join(", ");
}

/** A client-side problem with one field (only malformed JSON: bounds are left to the server). */
export class FieldError extends Error {
  constructor(field, message) {
    super(message);
    this.field = field;
  }
}

/** Options carry the enum value as text; this maps it back to the typed value (5, not "5"). */
export const enumFromText = (values, text) => values.find((value) => String(value) === text);

/** Describes one form field: its control plus how to read and fill it. */
export function buildControl(name, prop, required) {
  const { type, schema } = propertyType(prop);
  const id = `param-${name}`;
  const enumValues = Array.isArray(schema.enum) ? schema.enum.filter((value) => value !== null) : null; // null = "—"
  const itemEnum = schema.items && schema.items.enum;
  const example = Array.isArray(schema.examples) && present(schema.examples[0]) ? `e.g. ${asText(schema.examples[0])}` : "";
  const placeholder = present(schema.default) ? asText(schema.default) : example;

  if (enumValues) {
    const control = el("select", { id, name });
    if (!required) control.append(el("option", { value: "" }, "—"));
    for (const value of enumValues) control.append(el("option", { value: String(value) }, String(value)));
    return {
      control,
      read: () => (control.value === "" ? undefined : enumFromText(enumValues, control.value)),
      fill: (value) => {
        const known = enumValues.includes(value);
        control.value = known ? String(value) : required ? String(enumValues[0]) : "";
      },
    };
  }
  if (type === "boolean") {
    if (required) {
      const control = el("input", { id, name, type: "checkbox" });
      return { control, read: () => control.checked, fill: (value) => (control.checked = value === true) };
    }
    const control = el("select", { id, name }, el("option", { value: "" }, "—"), el("option", { value: "true" }, "true"), el("option", { value: "false" }, "false"));
    return {
      control,
      read: () => (control.value === "" ? undefined : control.value === "true"),
      fill: (value) => (control.value = value === true ? "true" : value === false ? "false" : ""),
    };
  }
  if (type === "integer" || type === "number") {
    const control = el("input", { id, name, type: "number", step: type === "integer" ? "1" : "any", placeholder, min: schema.minimum, max: schema.maximum });
    return {
      control,
      // An unparsable number is sent as typed, so the server's validation message is what shows.
      read: () => (control.value.trim() === "" ? undefined : Number.isNaN(Number(control.value)) ? control.value : Number(control.value)),
      fill: (value) => (control.value = present(value) ? String(value) : ""),
    };
  }
  if (type === "array" && Array.isArray(itemEnum)) {
    const control = el("select", { id, name, multiple: true, size: Math.min(Math.max(itemEnum.length, 2), 6) });
    for (const value of itemEnum) control.append(el("option", { value: String(value) }, String(value)));
    return {
      control,
      read: () => {
        const chosen = Array.from(control.selectedOptions, (option) => enumFromText(itemEnum, option.value));
        return chosen.length || required ? chosen : undefined;
      },
      fill: (value) => {
        const wanted = Array.isArray(value) ? value : [];
        for (const option of control.options) option.selected = wanted.some((v) => String(v) === option.value);
      },
    };
  }
  if (type === "array" && !isPlainObject(schema.items?.properties)) {
    const itemType = propertyType(schema.items || {}).type;
    const numeric = itemType === "integer" || itemType === "number";
    const control = el("input", { id, name, type: "text", placeholder: placeholder || "comma-separated values" });
    return {
      control,
      read: () => {
        const values = control.value.split(",").map((part) => part.trim()).filter(Boolean);
        if (!values.length) return required ? [] : undefined;
        return numeric ? values.map((v) => (Number.isNaN(Number(v)) ? v : Number(v))) : values;
      },
      fill: (value) => (control.value = Array.isArray(value) ? value.map(asText).join(", ") : asText(value)),
    };
  }
  if (type === "object" || type === "array") {
    const control = el("textarea", { id, name, rows: 3, spellcheck: "false", placeholder: placeholder || "JSON" });
    return {
      control,
      read: () => {
        if (!control.value.trim()) return undefined;
        try {
          return JSON.parse(control.value);
        } catch {
          throw new FieldError(name, "Not valid JSON.");
        }
      },
      fill: (value) => (control.value = present(value) ? pretty(value) : ""),
    };
  }
  const control = el("input", { id, name, type: "text", placeholder });
  return {
    control,
    read: () => (control.value === "" ? undefined : control.value),
    fill: (value) => (control.value = present(value) ? asText(value) : ""),
  };
}
