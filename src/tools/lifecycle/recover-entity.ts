import { z } from "zod";
import type { ToolContext } from "../context.js";
import { defineTool, MANAGER_ROLES } from "../define.js";
import { refParam } from "../discovery/params.js";
import { ARRANGE } from "../support/hints.js";
import { jobOutcome, settleJob } from "../support/job-wait.js";
import { lines } from "../support/text.js";
import { binEntry, binLine, binOut, binOutcome } from "./params.js";

const input = z.object({
  ref: refParam("Ref of an entity in the recycle bin; find it with `recycle_bin`"),
});

/** `deletion`: the deletion it came back from (all of it comes back). */
const output = z.object(binOut);

export default defineTool({
  name: "recover_entity",
  title: "Recover from the recycle bin",
  description:
    "Bring a deleted asset or folder back from the recycle bin, with everything deleted with it, exactly as it was (metadata, identifiers, files). Runs as a job.",
  toolset: "lifecycle",
  // The service grants Delete (which deleting and recovering need) to managers and administrators only.
  requiredRoles: MANAGER_ROLES,
  inputSchema: input,
  outputSchema: output,
  annotations: ARRANGE,
  async handler(args, ctx: ToolContext) {
    const b = await binEntry(
      ctx,
      args.ref,
      "`recycle_bin` lists what can be recovered. Nothing was changed.",
    );
    const job = await ctx.api.lifecycle.recover({ deletions: [b.deletion] }, ctx.signal);
    const settled = await settleJob(ctx, job);
    return {
      structured: binOutcome(settled, b),
      text: lines(
        `Recovering ${binLine(b)} from the recycle bin (deletion ${b.deletion}): ${jobOutcome(settled, { serviceMessage: true })}`,
        settled.finished
          ? b.parentRef
            ? `It went back into folder ${b.parentRef}.`
            : "It went back to the top level."
          : b.parentRef
            ? `It goes back into folder ${b.parentRef}.`
            : "It goes back to the top level.",
      ),
      audit: { targets: [{ ref: b.ref, title: b.title }], job, jobFinished: settled.finished },
    };
  },
});
