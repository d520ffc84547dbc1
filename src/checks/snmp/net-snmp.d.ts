/**
 * The part of the `net-snmp` package (which ships no types) that the snmp check uses, including
 * the `Authentication`/`Encryption` internals it extends in net-snmp-extensions.ts.
 */
declare module "net-snmp" {
  interface Varbind {
    oid: string;
    type: number;
    value: unknown;
  }
  interface SessionOptions {
    port?: number;
    retries?: number;
    timeout?: number;
    transport?: "udp4" | "udp6";
    version?: number;
    idBitsSize?: 16 | 32;
  }
  interface User {
    name: string;
    level: number;
    authProtocol?: string;
    authKey?: string;
    privProtocol?: string;
    privKey?: string;
  }
  interface Session {
    get(oids: string[], cb: (error: Error | null, varbinds: Varbind[]) => void): void;
    close(): void;
    on(event: "error", cb: (e: Error) => void): void;
  }
  interface EncryptionAlgorithm {
    CRYPTO_ALGORITHM: string;
    KEY_LENGTH: number;
    BLOCK_LENGTH: number;
    encryptPdu: (...args: never[]) => unknown;
    decryptPdu: (...args: never[]) => unknown;
    localizationAlgorithm: (...args: never[]) => Buffer;
  }
  const api: {
    Version2c: number;
    Version3: number;
    ObjectType: Record<string, number>;
    SecurityLevel: { noAuthNoPriv: number; authNoPriv: number; authPriv: number };
    AuthProtocols: Record<string, string>;
    PrivProtocols: Record<string, string>;
    createSession(target: string, community: string, options: SessionOptions): Session;
    createV3Session(target: string, user: User, options: SessionOptions): Session;
    isVarbindError(v: Varbind): boolean;
    varbindError(v: Varbind): string;
    Authentication: {
      passwordToKey(authProtocol: string, password: string, engineID: Buffer): Buffer;
    };
    Encryption: {
      algorithms: Record<string, EncryptionAlgorithm>;
      encryptPduAes: (...args: never[]) => unknown;
      decryptPduAes: (...args: never[]) => unknown;
      generateLocalizedKeyBlumenthal: (...args: never[]) => Buffer;
      generateLocalizedKeyReeder: (...args: never[]) => Buffer;
    };
  };
  export default api;
}
