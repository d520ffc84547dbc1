/**
 * More builtin packages for the evaluator's registry (`src/cue/eval/builtins/registry.ts`):
 * `strconv`, `encoding/base64`, `encoding/hex`, `encoding/yaml` (Marshal, MarshalStream),
 * `text/template` (Execute with field substitution), `crypto/*` digests, `path` and `html`.
 * Importing this module registers them.
 */

import "./strconv.js";
import "./encoding.js";
import "./yaml.js";
import "./text-template.js";
import "./crypto-path-html.js";
