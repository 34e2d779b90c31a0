import type { HttpClient } from "./http.js";

/** Process Monitor, Workflow and Reports APIs. Thin typed methods; nothing MCP-specific. */
export class OperationsApi {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: the methods arrive with the toolset's tools.
  constructor(private readonly http: HttpClient) {}
}
