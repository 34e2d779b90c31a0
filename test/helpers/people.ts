import { AuthApi } from "../../src/api/auth.js";
import { HttpClient } from "../../src/api/http.js";
import type { PersonSessions } from "../../src/identity/people.js";
import { silentLogger } from "../../src/log.js";
import { DEMO_USERS, type DemoUser } from "./repository.js";

/**
 * Signs `subject` in as a demo user the way the sign-in page does: the Authentication API login, then the
 * grant handed to PersonSessions (for users that need no second step).
 */
export async function signInPerson(
  people: PersonSessions,
  serviceUrl: string,
  subject: string,
  who: DemoUser,
): Promise<void> {
  const http = new HttpClient({ baseUrl: serviceUrl, logger: silentLogger });
  try {
    const sentAt = Date.now();
    const outcome = await new AuthApi(http).login(DEMO_USERS[who]);
    if (outcome.kind !== "token") throw new Error(`${who} needs a second step`);
    await people.signedIn(subject, outcome.grant, sentAt);
  } finally {
    await http.close();
  }
}
