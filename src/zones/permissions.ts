import {
  JOBS_STREAM,
  jobsConsumer,
  RESULTS_STREAM,
  resultSubject,
  WORKERS_BUCKET,
  workerInboxPrefix,
  zoneToken,
} from "./names.js";

/** A NATS user's permissions: the subjects it may publish to and subscribe to, nothing else. */
export interface NatsPermissions {
  readonly publish: readonly string[];
  readonly subscribe: readonly string[];
}

/**
 * What a worker of `zone` needs, and no more (docs/zones.md, Securing NATS): read the streams'
 * and its zone consumer's info, pull from and acknowledge on its zone's consumer only, publish its
 * zone's results, write its zone's entries of the workers bucket, and read replies in its zone's
 * inbox space. It cannot create or change a stream or a consumer (a consumer of its own could
 * filter another zone's jobs, and their `$USERn$` values), read another zone's jobs or replies, or
 * publish another zone's results. The server creates what the worker needs (start it first; a
 * worker retries until it finds them).
 */
export function workerPermissions(zone: string): NatsPermissions {
  const consumer = jobsConsumer(zone);
  return {
    publish: [
      "$JS.API.INFO",
      `$JS.API.STREAM.INFO.${JOBS_STREAM}`,
      `$JS.API.STREAM.INFO.${RESULTS_STREAM}`,
      `$JS.API.STREAM.INFO.KV_${WORKERS_BUCKET}`,
      `$JS.API.CONSUMER.INFO.${JOBS_STREAM}.${consumer}`,
      `$JS.API.CONSUMER.MSG.NEXT.${JOBS_STREAM}.${consumer}`,
      `$JS.ACK.${JOBS_STREAM}.${consumer}.>`,
      resultSubject(zone),
      `$KV.${WORKERS_BUCKET}.${zoneToken(zone)}.>`,
    ],
    subscribe: [`${workerInboxPrefix(zone)}.>`],
  };
}

/**
 * One user of a nats-server `authorization { users: [...] }` block, in the server's config syntax:
 * the password as given (use a bcrypt hash from `nats server passwd` in production), and the
 * permissions when there are any (absent: the user may do anything, as the Lookout server needs).
 */
export function natsUserEntry(user: string, password: string, p?: NatsPermissions): string {
  const list = (xs: readonly string[]) => xs.map((x) => JSON.stringify(x)).join(", ");
  const perms =
    p === undefined
      ? ""
      : `, permissions: {publish: {allow: [${list(p.publish)}]}, subscribe: {allow: [${list(p.subscribe)}]}}`;
  return `{user: ${JSON.stringify(user)}, password: ${JSON.stringify(password)}${perms}}`;
}
