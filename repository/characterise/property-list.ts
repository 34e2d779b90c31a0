import type { TechnicalProperty } from "../store/characterisation/properties.js";
import { PROPERTY, type PropertyKey } from "./property-ids.js";

/** Properties in the order they are added, each once, leaving out values that are missing or empty. */
export class PropertyList {
  private readonly items: TechnicalProperty[] = [];
  private readonly seen = new Set<PropertyKey>();

  add(key: PropertyKey, value: string | number | null | undefined): this {
    if (value === null || value === undefined || this.seen.has(key)) return this;
    if (typeof value === "number" && !Number.isFinite(value)) return this;
    const text = String(value).replace(/\0/g, "").trim();
    if (text === "") return this;
    this.seen.add(key);
    this.items.push({ ...PROPERTY[key], value: text });
    return this;
  }

  toArray(): TechnicalProperty[] {
    return [...this.items];
  }
}
