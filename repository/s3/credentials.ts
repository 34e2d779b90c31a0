/**
 * Where an S3 request carries the caller's Preservica access token. S3 clients sign with an access key
 * and a secret; the real service's clients put the access token in the access-key slot and the literal
 * `NOT_USED` in the secret, and the service does not verify the signature (it cannot: it never knew a
 * secret). So the token is read, not checked, from:
 *   - the `Preservica-Access-Token` header (also accepted, and preferred when present);
 *   - SigV4 `Authorization: AWS4-HMAC-SHA256 Credential=<token>/<date>/<region>/s3/aws4_request, …`;
 *   - a presigned URL's `X-Amz-Credential=<token>/<date>/<region>/s3/aws4_request` query parameter;
 *   - legacy SigV2 `Authorization: AWS <token>:<signature>`.
 * Whether the token is live is the caller's business (routes/s3.ts answers 401 when it is not).
 */

export type TokenSource = "header" | "sigv4" | "presigned" | "sigv2";

export type FoundToken =
  | { token: string; source: TokenSource }
  /** An Authorization header that names no token the service can read (said so in the 401). */
  | { malformed: string }
  | undefined;

/** The credential scope's four trailing parts: date, region, service, `aws4_request`. */
const SCOPE_PARTS = 4;

export function findAccessToken(headers: Headers, query: URLSearchParams): FoundToken {
  const direct = headers.get("preservica-access-token")?.trim();
  if (direct) return { token: direct, source: "header" };

  const auth = headers.get("authorization")?.trim();
  if (auth) {
    if (/^AWS4-HMAC-SHA256\s/i.test(auth)) {
      const credential = /(?:^|[\s,])Credential=([^,\s]+)/.exec(auth)?.[1];
      const key = credential ? accessKeyOf(credential) : undefined;
      return key
        ? { token: key, source: "sigv4" }
        : {
            malformed:
              "the AWS4-HMAC-SHA256 Authorization header has no Credential=<key>/<date>/<region>/s3/aws4_request",
          };
    }
    const v2 = /^AWS\s+(\S+):\S*$/.exec(auth);
    if (v2?.[1]) return { token: v2[1], source: "sigv2" };
    return {
      malformed: `the Authorization header uses a scheme this service does not read ("${auth.split(/\s/)[0]?.slice(0, 30)}"); sign with AWS4-HMAC-SHA256`,
    };
  }

  const presigned = query.get("X-Amz-Credential");
  if (presigned) {
    const key = accessKeyOf(presigned);
    return key
      ? { token: key, source: "presigned" }
      : { malformed: "X-Amz-Credential is not <key>/<date>/<region>/s3/aws4_request" };
  }
  return undefined;
}

/**
 * The access key of a credential `<key>/<date>/<region>/<service>/aws4_request`. Split from the right:
 * the scope's parts never contain a slash, and so nothing a key might contain is cut off.
 */
export function accessKeyOf(credential: string): string | undefined {
  const parts = credential.split("/");
  if (parts.length <= SCOPE_PARTS || parts[parts.length - 1] !== "aws4_request") return undefined;
  const key = parts.slice(0, parts.length - SCOPE_PARTS).join("/");
  return key === "" ? undefined : key;
}
