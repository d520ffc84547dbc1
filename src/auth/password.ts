import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/** scrypt's cost parameters for new hashes: N = 2^14, r = 8, p = 1 (16 MiB, tens of milliseconds). */
const LN = 14;
const R = 8;
const P = 1;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
/** The largest N accepted from a document (2^20 needs 1 GiB): a typo must not exhaust memory. */
const MAX_LN = 20;

/**
 * The string form of a password hash: `$scrypt$ln=14,r=8,p=1$<salt>$<key>`, salt and key in
 * unpadded standard base64 (the form passlib writes, minus its padding rules).
 */
export const PASSWORD_HASH_PATTERN =
  /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

interface Parsed {
  readonly ln: number;
  readonly r: number;
  readonly p: number;
  readonly salt: Buffer;
  readonly key: Buffer;
}

function parse(encoded: string): Parsed | undefined {
  const m = PASSWORD_HASH_PATTERN.exec(encoded);
  if (m === null) return undefined;
  const [ln, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (ln < 1 || ln > MAX_LN || r < 1 || p < 1) return undefined;
  const salt = Buffer.from(m[4] as string, "base64");
  const key = Buffer.from(m[5] as string, "base64");
  if (salt.length < 8 || key.length < 16) return undefined;
  return { ln, r, p, salt, key };
}

/** Whether a string is a password hash this module can verify (and not, say, a plaintext password). */
export function isPasswordHash(s: string): boolean {
  return parse(s) !== undefined;
}

function derive(
  password: string,
  salt: Buffer,
  ln: number,
  r: number,
  p: number,
  len: number,
): Promise<Buffer> {
  const N = 2 ** ln;
  return new Promise((resolve, reject) => {
    scrypt(password, salt, len, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }, (err, key) =>
      err === null ? resolve(key) : reject(err),
    );
  });
}

/** Hashes a password with a fresh random salt, in the string form above. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, LN, R, P, KEY_BYTES);
  const b64 = (b: Buffer) => b.toString("base64").replace(/=+$/, "");
  return `$scrypt$ln=${LN},r=${R},p=${P}$${b64(salt)}$${b64(key)}`;
}

/** A hash of no password, verified against when the name is unknown so both take the same time. */
let decoy: Promise<string> | undefined;

/**
 * Whether `password` matches `encoded` (compared in constant time). With `encoded` undefined (an
 * unknown name) a decoy hash is checked, so that the answer takes as long as for a known name.
 * Runs on libuv's thread pool: the event loop keeps serving meanwhile.
 */
export async function verifyPassword(password: string, encoded: string | undefined): Promise<boolean> {
  decoy ??= hashPassword(randomBytes(12).toString("hex"));
  const parsed = parse(encoded ?? (await decoy));
  if (parsed === undefined) return false;
  const key = await derive(password, parsed.salt, parsed.ln, parsed.r, parsed.p, parsed.key.length);
  return timingSafeEqual(key, parsed.key) && encoded !== undefined;
}
