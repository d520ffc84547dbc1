/**
 * Fills the gaps of the `net-snmp` package so every privacy protocol the schema lists works:
 *
 * - DES: Node 20's OpenSSL 3 keeps `des-cbc` in the legacy provider, so net-snmp's DES fails with
 *   ERR_OSSL_EVP_UNSUPPORTED unless node runs with `--openssl-legacy-provider`. Instead of asking every
 *   operator for that flag (it re-enables every legacy algorithm process-wide), DES-CBC is computed as
 *   3DES-EDE-CBC with K1 = K2 = K3, which is exactly single DES (E_K(D_K(E_K(x))) = E_K(x)) and lives in
 *   the default provider. Installed only when `des-cbc` is really unavailable.
 * - AES192 / AES192C: net-snmp has AES-256 with Blumenthal ("aes256b") and Reeder ("aes256r") key
 *   extension but no 192-bit variants; they are the same construction with a 24-byte key, registered
 *   here as "aes192b" and "aes192r".
 *
 * The extensions patch the module's shared algorithm table once, on first import.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import snmp from "net-snmp";

/** net-snmp's PrivProtocols value for each 192-bit variant this file adds. */
export const AES192_BLUMENTHAL = "aes192b";
export const AES192_REEDER = "aes192r";

interface Engine {
  engineID: Buffer;
}

function desKeyAndIv(
  privPassword: string,
  authProtocol: string,
  engine: Engine,
  salt: Buffer,
): [Buffer, Buffer] {
  // RFC 3414 §8.1.1.1: the first 8 bytes of the localized key are the DES key, the next 8 the pre-IV.
  const localized = snmp.Authentication.passwordToKey(authProtocol, privPassword, engine.engineID);
  const key = localized.subarray(0, 8);
  const preIv = localized.subarray(8, 16);
  const iv = Buffer.alloc(8);
  for (let i = 0; i < 8; i++) iv[i] = (preIv[i] as number) ^ (salt[i] as number);
  return [Buffer.concat([key, key, key]), iv];
}

function encryptPduDes(
  scopedPdu: Buffer,
  _privProtocol: string,
  privPassword: string,
  authProtocol: string,
  engine: Engine,
): { encryptedPdu: Buffer; msgPrivacyParameters: Buffer } {
  // The salt is engineBoots (we keep none: 1) and 4 random bytes, as net-snmp's own DES does.
  const salt = Buffer.alloc(8);
  salt.writeUInt32BE(1, 0);
  randomBytes(4).copy(salt, 4);
  const [key, iv] = desKeyAndIv(privPassword, authProtocol, engine, salt);
  const padded = Buffer.alloc(Math.ceil(scopedPdu.length / 8) * 8);
  scopedPdu.copy(padded);
  const cipher = createCipheriv("des-ede3-cbc", key, iv);
  cipher.setAutoPadding(false);
  return { encryptedPdu: Buffer.concat([cipher.update(padded), cipher.final()]), msgPrivacyParameters: salt };
}

function decryptPduDes(
  encryptedPdu: Buffer,
  _privProtocol: string,
  privParameters: Buffer,
  privPassword: string,
  authProtocol: string,
  engine: Engine,
): Buffer {
  const [key, iv] = desKeyAndIv(privPassword, authProtocol, engine, privParameters);
  const decipher = createDecipheriv("des-ede3-cbc", key, iv);
  decipher.setAutoPadding(false);
  return Buffer.concat([decipher.update(encryptedPdu), decipher.final()]);
}

function desCbcAvailable(): boolean {
  try {
    createCipheriv("des-cbc", Buffer.alloc(8), Buffer.alloc(8));
    return true;
  } catch {
    return false;
  }
}

/** Whether DES goes through the 3DES stand-in (true on Node 17+ without the legacy provider). */
export const desViaTripleDes = !desCbcAvailable();

const E = snmp.Encryption;
const des = E.algorithms[snmp.PrivProtocols.des as string];
if (desViaTripleDes && des !== undefined) {
  des.encryptPdu = encryptPduDes as (...args: never[]) => unknown;
  des.decryptPdu = decryptPduDes as (...args: never[]) => unknown;
}
E.algorithms[AES192_BLUMENTHAL] = {
  CRYPTO_ALGORITHM: "aes-192-cfb",
  KEY_LENGTH: 24,
  BLOCK_LENGTH: 16,
  encryptPdu: E.encryptPduAes,
  decryptPdu: E.decryptPduAes,
  localizationAlgorithm: E.generateLocalizedKeyBlumenthal,
};
E.algorithms[AES192_REEDER] = {
  CRYPTO_ALGORITHM: "aes-192-cfb",
  KEY_LENGTH: 24,
  BLOCK_LENGTH: 16,
  encryptPdu: E.encryptPduAes,
  decryptPdu: E.decryptPduAes,
  localizationAlgorithm: E.generateLocalizedKeyReeder,
};

export { snmp };
