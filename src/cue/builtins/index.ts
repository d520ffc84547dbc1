/**
 * More builtin packages for the evaluator's registry (`src/cue/eval/builtins/registry.ts`):
 * `strconv`, `encoding/base64`, `encoding/hex`, `encoding/csv`, `encoding/yaml` (Marshal, MarshalStream),
 * `math/bits`,
 * `text/template` (Execute with field substitution), `crypto/*` digests, `path` and `html`.
 * Importing this module registers them.
 */

import "./strconv.js";
import "./encoding.js";
import "./csv.js";
import "./math-bits.js";
import "./yaml.js";
import "./text-template.js";
import "./crypto-path-html.js";
