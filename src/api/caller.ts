import {
  Code,
  ConnectError,
  type ContextValues,
  createContextKey,
  createContextValues,
  type Interceptor,
} from "@connectrpc/connect";
import type { AuthGate, Principal, Surface } from "../auth/index.js";
import { type ApiAudit, NO_AUDIT } from "./api-audit.js";
import type { NodeRequest } from "./request-body.js";

/** Who made a call: the principal the gate resolved (if any) and the peer's address. */
export interface Caller {
  readonly principal?: Principal;
  /** host:port of the TCP peer (`[v6]:port` for IPv6). */
  readonly peer: string;
}

/** The caller of a routed call, in its context values (set by the gate's interceptor). */
export const callerKey = createContextKey<Caller>({ peer: "" }, { description: "lookout caller" });

/** host:port of a request's TCP peer. */
export function peerOf(req: NodeRequest): string {
  return socketPeer(req.socket);
}

/** host:port of a connection's peer (`[v6]:port` for IPv6). */
export function socketPeer(s: {
  readonly remoteAddress?: string | undefined;
  readonly remotePort?: number | undefined;
}): string {
  const host = s.remoteAddress ?? "";
  return `${host.includes(":") ? `[${host}]` : host}:${s.remotePort ?? 0}`;
}

/** The context values a routed call starts with: its peer (the gate adds the principal). */
export function requestContextValues(req: NodeRequest): ContextValues {
  const values = createContextValues();
  values.set(callerKey, { peer: peerOf(req) });
  return values;
}

/**
 * A gate's refusal: the Connect error to answer, and the caller that was refused — its principal
 * when the credentials named someone (a viewer calling CommandService), for the audit record.
 */
export class GateRefusal extends ConnectError {
  constructor(
    message: string,
    code: Code,
    readonly caller: Caller,
  ) {
    super(message, code);
  }
}

/** The Connect error for a gate's refusal (codes are chosen here, in api/). */
function refusal(
  answer: { reason: "unauthenticated" | "permission_denied"; message: string; principal?: Principal },
  peer: string,
): GateRefusal {
  const caller = answer.principal === undefined ? { peer } : { peer, principal: answer.principal };
  switch (answer.reason) {
    case "unauthenticated":
      return new GateRefusal(answer.message, Code.Unauthenticated, caller);
    case "permission_denied":
      return new GateRefusal(answer.message, Code.PermissionDenied, caller);
    default: {
      const never: never = answer.reason;
      throw new Error(`unknown refusal ${String(never)}`);
    }
  }
}

/**
 * Checks a request against the gate for one service, by its Authorization and Cookie headers: the
 * caller (peer and principal) when it may pass, else the refusal to answer (which names the caller
 * refused). The router's interceptor and the fast paths both use it, so they cannot differ.
 */
export function admit(
  gate: AuthGate,
  surface: Surface,
  headers: { authorization?: string | undefined; cookie?: string | undefined },
  peer: string,
): Caller | GateRefusal {
  const answer = gate.check(surface, headers);
  if (!answer.ok) return refusal(answer, peer);
  return answer.principal === undefined ? { peer } : { peer, principal: answer.principal };
}

/** The AdminService calls that change the config: audited even when the gate refuses them. */
const CONFIG_WRITES: ReadonlySet<string> = new Set(["ApplyConfig", "RollbackConfig"]);

/**
 * The gate as the Connect interceptor of one service; it records the caller in the context values.
 * A refused write (any CommandService call, ApplyConfig, RollbackConfig) is audited as rejected:
 * who knocked matters as much as who got in.
 */
export function gateInterceptor(gate: AuthGate, surface: Surface, audit: ApiAudit = NO_AUDIT): Interceptor {
  return (next) => async (req) => {
    const peer = req.contextValues.get(callerKey).peer;
    const h = req.header;
    const admitted = admit(
      gate,
      surface,
      { authorization: h.get("authorization") ?? undefined, cookie: h.get("cookie") ?? undefined },
      peer,
    );
    if (admitted instanceof GateRefusal) {
      if (surface === "command" || (surface === "admin" && CONFIG_WRITES.has(req.method.name))) {
        audit.call(
          admitted.caller,
          `/${req.service.typeName}/${req.method.name}`,
          { Type: req.method.name },
          admitted,
        );
      }
      throw admitted;
    }
    req.contextValues.set(callerKey, admitted);
    return next(req);
  };
}
