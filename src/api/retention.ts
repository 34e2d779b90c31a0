import type { HttpClient } from "./http.js";

/** Entity API retention: policies and assignments. Thin typed methods; nothing MCP-specific. */
export class RetentionApi {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: the methods arrive with the toolset's tools.
  constructor(private readonly http: HttpClient) {}
}
