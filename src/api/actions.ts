import type { HttpClient } from "./http.js";

/** Progress of long-running actions (/api/entity/progress) and action listings. Thin typed methods; nothing MCP-specific. */
export class ActionsApi {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: the methods arrive with the toolset's tools.
  constructor(private readonly http: HttpClient) {}
}
