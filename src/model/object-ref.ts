/**
 * Objects are hosts and services. A service is named by its host and its own name; the canonical key
 * joins them with `!`, as Icinga 2 does (`web1!http`), and a host's key is its name.
 */
export interface ObjectRef {
  readonly host: string;
  readonly service?: string;
}

/** The canonical key of an object. */
export function objectKey(ref: ObjectRef): string {
  return ref.service === undefined ? ref.host : `${ref.host}!${ref.service}`;
}

/** The inverse of objectKey: the first `!` separates host from service. */
export function parseObjectKey(key: string): ObjectRef {
  const i = key.indexOf("!");
  return i < 0 ? { host: key } : { host: key.slice(0, i), service: key.slice(i + 1) };
}
