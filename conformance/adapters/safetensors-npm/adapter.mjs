// stguard conform adapter for the npm package "safetensors" (class SafeTensor).
// The library parses a whole file held in memory: it gets a Uint8Array over a
// fresh ArrayBuffer, exactly what its own loader builds from a fetch response.
// Its verdict is the verdict; this adapter adds no checks of its own (see
// README.md).
//
//   node adapter.mjs FILE       one JSON line: {"verdict", "error"|"tensors"}
//   node adapter.mjs --persistent  the same for each path read from stdin
//   node adapter.mjs --version  "safetensors@<installed version>"
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

import { emit, errorMessage, integerList, integerOrText, render, runAdapter } from "../lib/protocol.mjs";

const kPackage = "safetensors";
const kHere = dirname(fileURLToPath(import.meta.url));

// The library keeps data_offsets as file positions, begin + 8 + N (N: the
// header length it read). Report them relative to the data buffer again
// (exactly for integers, a fraction as text); anything else (the library
// adds whatever the header held, so a string offset becomes a concatenated
// string) is reported as the library holds it.
function relativeOffset(value, start) {
  if (typeof value === "number" && Number.isInteger(start)) {
    if (Number.isInteger(value)) return integerOrText(BigInt(value) - BigInt(start));
    if (Number.isFinite(value)) return render(value - start);
  }
  return integerOrText(value);
}

async function check(path) {
  // The package is CommonJS (UMD) without named ESM exports.
  const { default: library } = await import(kPackage);

  // The library reads the length prefix through the view's underlying
  // ArrayBuffer from byte 0, so it must get a buffer of its own (Node may
  // hand out a slice of a shared pool), as its loader would.
  let file;
  try {
    const bytes = readFileSync(path);
    file = new Uint8Array(new ArrayBuffer(bytes.length));
    file.set(bytes);
  } catch (err) {
    process.stderr.write(`safetensors-npm adapter: cannot load ${path}: ${errorMessage(err)}\n`);
    process.exitCode = 2;
    return;
  }

  // Only the library's own calls decide the verdict: the constructor parses,
  // and getTensor is its only way to hand out a tensor's bytes.
  const located = [];
  try {
    const parsed = new library.SafeTensor(file);
    for (const [name, info] of parsed.metadata) located.push([name, info, parsed.getTensor(name)]);
  } catch (err) {
    emit({ verdict: "reject", error: errorMessage(err) });
    return;
  }

  // Where the library puts the data buffer: after the prefix and the N header
  // bytes, N as it converts it (Number of the little-endian u64).
  const start = 8 + Number(new DataView(file.buffer).getBigUint64(0, true));
  const tensors = located.map(([name, info, bytes]) => ({
    name,
    dtype: render(info.dtype),
    shape: integerList(info.shape),
    data_offsets: Array.isArray(info.data_offsets)
      ? info.data_offsets.map((value) => relativeOffset(value, start))
      : integerList(info.data_offsets),
    sha256: createHash("sha256").update(bytes).digest("hex"),
  }));
  emit({ verdict: "accept", tensors });
}

await runAdapter({ adapter: "safetensors-npm", pkg: kPackage, here: kHere, check });
