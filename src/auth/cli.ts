import { hashPassword } from "./password.js";
import { mintToken } from "./token.js";

/** Where the subcommand writes, and where it reads a password from. */
export interface AuthCliIo {
  readonly stdin: AsyncIterable<Buffer | string>;
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
}

const USAGE = `usage:
  lookout auth hash-password     read a password (first line of stdin), print its hash for "password:"
  lookout auth mint-token        print a new bearer token and its "token_sha256:" line
`;

/**
 * `lookout auth`: provisioning help for the identities document (docs/auth.md). The password is
 * read from stdin, never from argv (which other users can see in the process list).
 */
export async function runAuthCli(args: readonly string[], io: AuthCliIo): Promise<number> {
  switch (args[0]) {
    case "hash-password": {
      let text = "";
      for await (const chunk of io.stdin) {
        text += chunk.toString();
        if (text.includes("\n")) break;
      }
      const password = text.split(/\r?\n/, 1)[0] ?? "";
      if (password === "") {
        io.stderr.write("lookout auth hash-password: empty password on stdin\n");
        return 1;
      }
      io.stdout.write(`${await hashPassword(password)}\n`);
      return 0;
    }
    case "mint-token": {
      const { token, sha256 } = mintToken();
      io.stdout.write(`token: ${token}\ntoken_sha256: "${sha256}"\n`);
      return 0;
    }
    default:
      io.stderr.write(USAGE);
      return args[0] === "-h" || args[0] === "--help" ? 0 : 2;
  }
}
