/**
 * Caps a module's linear memory before it is compiled. Worker threads share the engine's address
 * space and a module's memory.grow cannot be intercepted from JavaScript, so the only reliable limit
 * is the module's own declared maximum: the memory section is rewritten so that every memory has a
 * maximum no larger than the cap. A module whose initial size already exceeds the cap is refused.
 */

/** Thrown for a module that is not valid enough to rewrite, or that needs more than the cap. */
export class WasmModuleError extends Error {
  override readonly name = "WasmModuleError";
}

/** 64 KiB, the WebAssembly page size. */
export const WASM_PAGE = 65536;

function readLeb(b: Uint8Array, pos: number): [value: number, next: number] {
  let result = 0;
  let shift = 0;
  for (let i = pos; i < b.length && i < pos + 5; i++) {
    const byte = b[i] as number;
    result += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return [result, i + 1];
    shift += 7;
  }
  throw new WasmModuleError("malformed LEB128 number in module");
}

function writeLeb(n: number): number[] {
  const out: number[] = [];
  let v = n;
  do {
    let byte = v & 0x7f;
    v = Math.floor(v / 128);
    if (v !== 0) byte |= 0x80;
    out.push(byte);
  } while (v !== 0);
  return out;
}

/**
 * Returns the module bytes with every memory's maximum set to at most `maxPages`. Modules without
 * a memory section are returned unchanged. Throws WasmModuleError for a malformed header, a shared or
 * 64-bit memory, or an initial size above the cap.
 */
export function capMemory(bytes: Uint8Array, maxPages: number): Uint8Array {
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    throw new WasmModuleError("not a WebAssembly module (bad magic number)");
  }
  let pos = 8;
  while (pos < bytes.length) {
    const id = bytes[pos] as number;
    const [size, payload] = readLeb(bytes, pos + 1);
    const end = payload + size;
    if (end > bytes.length) throw new WasmModuleError("module section runs past the end of the file");
    if (id !== 5) {
      pos = end;
      continue;
    }
    let [count, p] = readLeb(bytes, payload);
    const out: number[] = writeLeb(count);
    for (; count > 0; count--) {
      const flags = bytes[p] as number;
      if (flags !== 0 && flags !== 1)
        throw new WasmModuleError("shared or 64-bit memories are not supported");
      let min: number;
      [min, p] = readLeb(bytes, p + 1);
      let max = maxPages;
      if (flags === 1) {
        let declared: number;
        [declared, p] = readLeb(bytes, p);
        max = Math.min(declared, maxPages);
      }
      if (min > maxPages) {
        throw new WasmModuleError(
          `module needs ${(min * WASM_PAGE) / 2 ** 20} MiB of memory at start, more than the ${(maxPages * WASM_PAGE) / 2 ** 20} MiB allowed`,
        );
      }
      out.push(1, ...writeLeb(min), ...writeLeb(max));
    }
    if (p !== end) throw new WasmModuleError("malformed memory section");
    const section = [5, ...writeLeb(out.length), ...out];
    const result = new Uint8Array(pos + section.length + (bytes.length - end));
    result.set(bytes.subarray(0, pos), 0);
    result.set(section, pos);
    result.set(bytes.subarray(end), pos + section.length);
    return result;
  }
  return bytes;
}
