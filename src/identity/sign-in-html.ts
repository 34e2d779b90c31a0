import { createHash } from "node:crypto";

/**
 * The sign-in page's HTML: plain forms, no script, no asset from anywhere (the one style block is allowed by
 * its hash in the Content-Security-Policy). Every value shown is escaped; the password is never put back into
 * a page, and nothing secret appears in one except the sealed state the page itself carries.
 */

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.3rem}label{display:block;margin:.8rem 0 .2rem}input[type=text],input[type=password]{width:100%;padding:.4rem;font:inherit;box-sizing:border-box}
button{margin-top:1.2rem;padding:.5rem 1.2rem;font:inherit}.error{color:#a00;border-left:3px solid #a00;padding-left:.6rem}.done{color:#075e2a}small{color:#555}`;

/** The policy every page is served with: nothing loads, nothing frames it, forms post only here. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] as string,
  );
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><h1>${escapeHtml(title)}</h1>
${body}
</body></html>`;
}

const hidden = (name: string, value: string) =>
  `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
const errorLine = (error: string | undefined) =>
  error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : "";

export interface FormFields {
  state: string;
  formToken: string;
  service: string;
  /** Whose assistant the sign-in is for (the OAuth identity the link was made for). */
  forWhom: string;
  error?: string;
}

/** The first step: user name, password, tenant. */
export function passwordPage(f: FormFields & { username?: string; tenant?: string }): string {
  return page(
    "Sign in to the repository",
    `<p>Your assistant asked to work in the repository at <strong>${escapeHtml(f.service)}</strong> as you. Sign in with your repository account; the password is sent to the repository once and never kept.</p>
<p class="for-whom">This sign-in is for the assistant signed in as <strong>${escapeHtml(f.forWhom)}</strong>. If that is not you, or you did not just ask your assistant for something, close this page: whoever sent you this link would act in the repository as you.</p>
${errorLine(f.error)}
<form method="post" action="/sign-in" autocomplete="off">
${hidden("state", f.state)}${hidden("form_token", f.formToken)}${hidden("step", "password")}
<label for="username">User name</label><input type="text" id="username" name="username" required maxlength="256" value="${escapeHtml(f.username ?? "")}" autocomplete="username">
<label for="password">Password</label><input type="password" id="password" name="password" required maxlength="1024" autocomplete="current-password">
<label for="tenant">Tenant <small>(if your repository has several)</small></label><input type="text" id="tenant" name="tenant" maxlength="256" value="${escapeHtml(f.tenant ?? "")}">
<button type="submit">Sign in</button>
</form>`,
  );
}

/** The second step, when the service asks: the authenticator's code or the e-mailed one. */
export function codePage(
  f: FormFields & { step: string; kind: "two-factor" | "email-challenge"; user: string },
): string {
  const ask =
    f.kind === "two-factor"
      ? `Two-factor authentication is on for <strong>${escapeHtml(f.user)}</strong>: enter the current 6-digit code from your authenticator app.`
      : `The repository e-mailed a sign-in code to <strong>${escapeHtml(f.user)}</strong>'s address: enter it here.`;
  return page(
    "One more step",
    `<p>${ask}</p>
${errorLine(f.error)}
<form method="post" action="/sign-in" autocomplete="off">
${hidden("state", f.state)}${hidden("form_token", f.formToken)}${hidden("step", "code")}${hidden("challenge", f.step)}
<label for="code">Code</label><input type="text" id="code" name="code" required maxlength="64" inputmode="${f.kind === "two-factor" ? "numeric" : "text"}" autocomplete="one-time-code">
<button type="submit">Continue</button>
</form>`,
  );
}

/** Signed in: who, and that the tab may go. */
export function donePage(who: string, service: string): string {
  return page(
    "Signed in",
    `<p class="done" role="status">You are signed in to the repository at <strong>${escapeHtml(service)}</strong> as <strong>${escapeHtml(who)}</strong>. Your assistant now works as you.</p>
<p>You can close this tab.</p>`,
  );
}

/** A page that cannot be used (expired, used, not for this server): what to do instead. */
export function refusedPage(reason: string): string {
  return page(
    "This sign-in page cannot be used",
    `<p class="error" role="alert">${escapeHtml(reason)}</p><p>Ask your assistant again: the next tool call gives a new sign-in link. You can close this tab.</p>`,
  );
}
