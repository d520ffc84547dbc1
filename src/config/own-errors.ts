import type { CueError, CueValue } from "../cue/index.js";
import { foldHosts } from "./fold-hosts.js";

/**
 * The user's document's own errors (evaluated alone, without the schema) where the document
 * unified with the schema failed. A mistake of the document itself is reported as the document's
 * (`a: 1 & 2`), not as whatever the schema adds to it; and such a mistake is an error of the
 * unified document too, at the same place or above it, so looking only under the failing paths
 * finds it without evaluating the whole document a second time (10,000 hosts of which one
 * template failed cost what that template's place costs).
 *
 * Hosts that repeat another host's errors (fold-hosts.ts) are looked at through that host: only
 * when it has errors of its own are the hosts it stands for looked at too.
 */
export function ownErrors(user: CueValue, failed: readonly CueError[], file: string): readonly CueError[] {
  const { errors, folded } = foldHosts(failed, file);
  const paths = errors.map((e) => e.path);
  if (folded.size > 0 && user.errorsUnder(paths).length > 0) {
    // A template's own mistake: every host it stands for has it as well.
    for (const others of folded.values()) {
      for (const h of others) paths.push(["hosts", h]);
    }
  }
  return user.errorsUnder(paths);
}
