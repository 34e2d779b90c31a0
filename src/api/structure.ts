import type { HttpClient } from "./http.js";

/** Entity API structure: create folders, move, security tags. Thin typed methods; nothing MCP-specific. */
export class StructureApi {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: the methods arrive with the toolset's tools.
  constructor(private readonly http: HttpClient) {}
}
