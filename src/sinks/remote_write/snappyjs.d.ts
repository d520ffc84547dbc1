/** snappyjs ships no types: the two functions the remote_write sink (and its test) use. */
declare module "snappyjs" {
  export function compress(input: Uint8Array): Uint8Array;
  export function uncompress(input: Uint8Array): Uint8Array;
}
