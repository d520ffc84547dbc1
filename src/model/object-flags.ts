/**
 * The run-time switches an operator turns off and on per object (SetObjectFlags, the command file's
 * ENABLE_/DISABLE_ commands): active checks, passive checks, notifications, flap detection. Every
 * switch is on unless an operator turned it off; the engine keeps what is off as one byte per
 * object, a bit per switch, so the default (all on) is 0.
 */

/** The switches, by name. */
export type ObjectSwitch = "activeChecks" | "passiveChecks" | "notifications" | "flapDetection";

/** Every switch, in the order the API and the docs list them. */
export const OBJECT_SWITCHES: readonly ObjectSwitch[] = [
  "activeChecks",
  "passiveChecks",
  "notifications",
  "flapDetection",
];

/** An object's switches: true when on (the default). */
export type ObjectFlags = { readonly [S in ObjectSwitch]: boolean };

/** A change to some switches: a present one is set, an absent one left as it is. */
export type ObjectFlagsChange = { readonly [S in ObjectSwitch]?: boolean };

/** A switch in words, as history shows it: "active checks", "flap detection". */
export function switchWords(s: ObjectSwitch): string {
  return s.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
}

/** The bit of a switch in the byte that holds what is off. */
export function switchBit(s: ObjectSwitch): number {
  switch (s) {
    case "activeChecks":
      return 1;
    case "passiveChecks":
      return 2;
    case "notifications":
      return 4;
    case "flapDetection":
      return 8;
    default: {
      const never: never = s;
      throw new Error(`unknown switch ${String(never)}`);
    }
  }
}

/** The switches a byte of what is off stands for. */
export function flagsOf(disabled: number): ObjectFlags {
  return {
    activeChecks: (disabled & 1) === 0,
    passiveChecks: (disabled & 2) === 0,
    notifications: (disabled & 4) === 0,
    flapDetection: (disabled & 8) === 0,
  };
}

/** The byte of what is off after `change` is applied to `disabled`. */
export function applyFlagsChange(disabled: number, change: ObjectFlagsChange): number {
  let d = disabled;
  for (const s of OBJECT_SWITCHES) {
    const on = change[s];
    if (on === undefined) continue;
    d = on ? d & ~switchBit(s) : d | switchBit(s);
  }
  return d;
}

/**
 * What an object status, a status record and ListStatus say of the switches: a field per switch
 * that is off, absent while it is on (so records and events of objects nobody switched are as
 * before).
 */
export interface DisabledFields {
  readonly activeChecksDisabled?: boolean;
  readonly passiveChecksDisabled?: boolean;
  readonly notificationsDisabled?: boolean;
  readonly flapDetectionDisabled?: boolean;
}

/** The fields of DisabledFields for a byte of what is off: only those that are true. */
export function disabledFields(disabled: number): DisabledFields {
  if (disabled === 0) return {};
  return {
    ...((disabled & 1) !== 0 ? { activeChecksDisabled: true } : {}),
    ...((disabled & 2) !== 0 ? { passiveChecksDisabled: true } : {}),
    ...((disabled & 4) !== 0 ? { notificationsDisabled: true } : {}),
    ...((disabled & 8) !== 0 ? { flapDetectionDisabled: true } : {}),
  };
}

/** The byte of what is off that DisabledFields say. */
export function disabledMaskOf(f: DisabledFields): number {
  return (
    (f.activeChecksDisabled === true ? 1 : 0) |
    (f.passiveChecksDisabled === true ? 2 : 0) |
    (f.notificationsDisabled === true ? 4 : 0) |
    (f.flapDetectionDisabled === true ? 8 : 0)
  );
}
