import type { HttpClient } from "./http.js";

/** Metadata CSV edits (dry run and apply as an action). Thin typed methods; nothing MCP-specific. */
export class MetadataCsvApi {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: the methods arrive with the toolset's tools.
  constructor(private readonly http: HttpClient) {}
}
