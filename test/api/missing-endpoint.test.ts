import { describe, expect, it } from "vitest";
import { endpointOf, isMissingEndpointReply, whyEndpointMissing } from "../../src/api/missing-endpoint.js";

const REF = "6f1c2b7e-4d0a-4c1e-9a51-3f0b2d8e1c44";
const NGINX = "<html><head><title>404 Not Found</title></head><body><center>nginx</center></body></html>";

describe("telling a missing endpoint from a missing item", () => {
  it("the service's own words settle it either way", () => {
    const ours = "No such endpoint: GET /api/entity/events; the APIs are under …";
    expect(
      isMissingEndpointReply(`/api/entity/information-objects/${REF}/x`, "{}", "application/json", ours),
    ).toBe(true);
    expect(
      isMissingEndpointReply("/api/entity/events", "{}", "application/json", "No handler found for GET /x"),
    ).toBe(true);
    expect(
      isMissingEndpointReply(
        `/api/entity/information-objects/${REF}`,
        "{}",
        "application/json",
        `Entity ${REF} not found`,
      ),
    ).toBe(false);
  });

  it("a page or an empty body is a missing endpoint only where the path names no item", () => {
    expect(isMissingEndpointReply("/api/entity/events?start=0", NGINX, "text/html", "404 Not Found")).toBe(
      true,
    );
    expect(isMissingEndpointReply("/api/user/details", "", "", undefined)).toBe(true);
    expect(
      isMissingEndpointReply(`/api/entity/information-objects/${REF}`, NGINX, "text/html", "404 Not Found"),
    ).toBe(false);
    expect(isMissingEndpointReply(`/api/content/object-details?id=sdb:IO|${REF}`, "", "", undefined)).toBe(
      false,
    );
  });

  it("names the endpoint without refs or query, and the release that added it", () => {
    expect(endpointOf(`/api/entity/information-objects/${REF}/exports?x=1`)).toBe(
      "/api/entity/information-objects/{ref}/exports",
    );
    expect(whyEndpointMissing("/api/entity/information-objects/{ref}/exports")).toContain(
      "older than release 6.3",
    );
    expect(whyEndpointMissing("/api/webhook/subscriptions")).toContain("older than release 6.8");
    expect(whyEndpointMissing("/api/content/search")).toContain("an older release");
  });
});
