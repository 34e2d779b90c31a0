import type { Readiness } from "./serve.js";
import type { Session } from "./session.js";
import type { SignInProblem } from "./sign-in-failure.js";

/**
 * `/readyz`: ready only while the upstream session is active. The reason names the kind of trouble, never
 * the service's URL, the user name or anything else of the configuration (probes are unauthenticated).
 *
 * A signed-out session is otherwise revived by the next tool call; an instance a load balancer keeps out of
 * rotation gets none, so the probe itself asks for a sign-in (one at a time, in the background). Never after
 * the service refused the credentials: repeating a refused password can lock the account.
 */
export function sessionReadiness(session: Session): () => Readiness {
  let attempt: Promise<unknown> | undefined;
  return () => {
    const state = session.state;
    if (state.kind === "active") return { ready: true };
    if (state.kind === "challenge-required") {
      return { ready: false, reason: "sign-in needs a person: finish it with the complete_sign_in tool" };
    }
    const problem = session.signInFailure?.problem;
    if (problem !== "credentials-refused" && !attempt) {
      attempt = session
        .whoAmI(AbortSignal.timeout(SIGN_IN_ATTEMPT_MS))
        .catch(() => {})
        .finally(() => {
          attempt = undefined;
        });
    }
    return {
      ready: false,
      reason: problem ? NOT_READY[problem] : "not signed in to the repository service yet",
    };
  };
}

const SIGN_IN_ATTEMPT_MS = 30_000;

const NOT_READY: Record<SignInProblem, string> = {
  unreachable: "the repository service cannot be reached; trying again",
  "credentials-refused": "the repository service refused this server's credentials; fix them and restart",
  "service-failed": "the repository service did not answer the sign-in as expected; trying again",
};
