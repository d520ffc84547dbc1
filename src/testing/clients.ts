import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { create, type DescMessage, fromBinary, type MessageShape, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";

/** The repository root (dist/src/testing → ../../..). */
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export interface HttpAnswer {
  readonly status: number;
  readonly body: string;
}

/** POSTs JSON with the real curl binary over HTTP/1.1, as the reference's call convention shows. */
export function curlJson(url: string, body: string, headers: readonly string[] = []): Promise<HttpAnswer> {
  const args = [
    "-sS",
    "-X",
    "POST",
    "-H",
    "Content-Type: application/json",
    "-w",
    "\n%{http_code}",
    "-d",
    body,
  ];
  for (const h of headers) args.push("-H", h);
  args.push(url);
  return new Promise((resolve, reject) => {
    execFile("curl", args, (err, stdout) => {
      if (err) return reject(err);
      const i = stdout.lastIndexOf("\n");
      resolve({ status: Number(stdout.slice(i + 1)), body: stdout.slice(0, i) });
    });
  });
}

/** Runs `buf curl` against the server with the repository's proto schema; resolves with stdout/stderr. */
export function bufCurl(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const buf = fileURLToPath(new URL("node_modules/.bin/buf", `file://${REPO_ROOT}`));
  return new Promise((resolve) => {
    execFile(buf, ["curl", "--schema", `${REPO_ROOT}proto`, ...args], (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === "number" ? err.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

/** One unary call with @grpc/grpc-js over cleartext HTTP/2 (prior knowledge), the way Go and Java clients call. */
export function grpcUnary<I extends DescMessage, O extends DescMessage>(
  address: string,
  path: string,
  input: I,
  output: O,
  request: MessageShape<I> = create(input),
  metadata: Record<string, string> = {},
): Promise<MessageShape<O>> {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(metadata)) md.set(k, v);
  return new Promise<MessageShape<O>>((resolve, reject) => {
    client.makeUnaryRequest(
      path,
      (m: MessageShape<I>) => Buffer.from(toBinary(input, m)),
      (b: Buffer) => fromBinary(output, b),
      request,
      md,
      (err, res) => {
        client.close();
        if (err) reject(err);
        else resolve(res as MessageShape<O>);
      },
    );
  });
}
