import type { HttpClient } from "./http.js";

/** Entity API writes: save title/description, descriptive metadata fragments, identifiers, links. Thin typed methods; nothing MCP-specific. */
export class EntityWriteApi {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: the methods arrive with the toolset's tools.
  constructor(private readonly http: HttpClient) {}
}
