/**
 * Builtin packages and predeclared identifiers. Importing this module registers all of them; new
 * packages plug in with `registerPackage` (see registry.ts).
 */

import "./predeclared.js";
import "./strings.js";
import "./list.js";
import "./math.js";
import "./net-time.js";
import "./json.js";
import "./match.js";
import "../../builtins/index.js";

export { ArgError, fn, type Member, registerPackage, registerPredeclared } from "./registry.js";
