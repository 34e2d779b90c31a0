import type { HttpClient } from "./http.js";

/** Entity API lifecycle: deletion (with approval), recycle bin, recovery, final deletion, content replacement, access representations. Thin typed methods; nothing MCP-specific. */
export class LifecycleApi {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: the methods arrive with the toolset's tools.
  constructor(private readonly http: HttpClient) {}
}
