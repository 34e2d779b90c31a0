import type { Session } from "../session/session.js";
import type { SignInProblem } from "../session/sign-in-failure.js";
import type { SharedState } from "../state/types.js";
import type { Readiness } from "./serve.js";

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

/**
 * The shared state store away: the instance stays ready (reads go on, and every instance shares the one
 * store, so taking them all out of rotation would stop reads too), and says that changes are refused.
 */
export function withSharedState(readiness: () => Readiness, state: SharedState): () => Readiness {
  return () => {
    const r = readiness();
    if (!r.ready || state.reachable) return r;
    return {
      ready: true,
      degraded:
        "the shared state store (PRESERVATION_STATE_URL) cannot be reached: changes are refused, reading goes on",
    };
  };
}
