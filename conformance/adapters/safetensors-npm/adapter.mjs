// stguard conform adapter for the npm package "safetensors" (class SafeTensor).
// The library parses a whole file held in memory: it gets a Uint8Array over a
// fresh ArrayBuffer, exactly what its own loader builds from a fetch response.
// Its verdict is the verdict; this adapter adds no checks of its own (see
// README.md).
//
//   node adapter.mjs FILE       one JSON line: {"verdict", "error"|"tensors"}
//   node adapter.mjs --version  "safetensors@<installed version>"
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const kPackage = "safetensors";
const kHere = dirname(fileURLToPath(import.meta.url));

function installedVersion() {
  const manifest = join(kHere, "node_modules", kPackage, "package.json");
  try {
    const version = JSON.parse(readFileSync(manifest, "utf8")).version;
    return typeof version === "string" ? version : null;
  } catch {
    return null;
  }
}

function notInstalled() {
  process.stderr.write(
    `safetensors-npm adapter: ${kPackage} is not installed in ${kHere}/node_modules ` +
      `(run "npm ci --no-audit --no-fund --ignore-scripts" there)\n`,
  );
  process.exitCode = 1;
}

// Text of any value for a protocol field that must be a string. Never throws
// (JSON.stringify can, on very deep nesting).
function render(value) {
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value); // JSON.parse("1e999") is Infinity
  try {
    const text = JSON.stringify(value);
    if (text !== undefined) return text;
  } catch {
    // fall through
  }
  return Object.prototype.toString.call(value);
}

const kMinJsonInteger = -(2n ** 63n);
const kMaxJsonInteger = 2n ** 64n - 1n;

// The library's number as an exact JSON integer when it is an integer a
// 64-bit reader can hold (a BigInt when past 2^53, so that no digits are
// rounded away in printing); anything else as text, which the runner grades
// as wrong content instead of misreading it.
function integerOrText(value) {
  if (typeof value === "number" && Number.isSafeInteger(value)) return value === 0 ? 0 : value;
  if (typeof value === "number" && Number.isInteger(value)) value = BigInt(value);
  if (typeof value === "bigint") {
    return value >= kMinJsonInteger && value <= kMaxJsonInteger ? value : value.toString();
  }
  return render(value);
}

function integerList(value) {
  return Array.isArray(value) ? value.map(integerOrText) : [`not an array: ${render(value)}`];
}

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

function errorMessage(err) {
  if (err instanceof Error) return err.message || err.name;
  return render(err);
}

// Lone UTF-16 surrogates (a header may escape one, "\ud800") become U+FFFD:
// JSON parsers such as the runner's reject them even when escaped, and the
// line would then count as the adapter's protocol error, not the reader's.
function wellFormed(text) {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");
}

// Written by hand rather than with JSON.stringify, which cannot print a
// BigInt. U+2028/U+2029 are legal raw in JSON strings but end lines for some
// line readers; escaped, the output is one line for every consumer.
function emit(object) {
  const text = (value) => JSON.stringify(wellFormed(value));
  const item = (x) => (typeof x === "bigint" ? x.toString() : typeof x === "string" ? text(x) : JSON.stringify(x));
  const tensor = (t) =>
    `{"name":${text(t.name)},"dtype":${text(t.dtype)},"shape":[${t.shape.map(item).join(",")}],` +
    `"data_offsets":[${t.data_offsets.map(item).join(",")}],"sha256":"${t.sha256}"}`;
  const line = (
    object.verdict === "accept"
      ? `{"verdict":"accept","tensors":[${object.tensors.map(tensor).join(",")}]}`
      : `{"verdict":"reject","error":${text(object.error)}}`
  ).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
  process.stdout.write(`${line}\n`, () => process.exit(0));
}

async function main(argv) {
  if (argv.length === 1 && argv[0] === "--version") {
    const version = installedVersion();
    if (version === null) return notInstalled();
    process.stdout.write(`${kPackage}@${version}\n`);
    return;
  }
  if (argv.length !== 1 || argv[0].startsWith("--")) {
    process.stderr.write("usage: node adapter.mjs FILE | --version\n");
    process.exitCode = 2;
    return;
  }
  if (installedVersion() === null) return notInstalled();
  // The package is CommonJS (UMD) without named ESM exports.
  const { default: library } = await import(kPackage);

  // The library reads the length prefix through the view's underlying
  // ArrayBuffer from byte 0, so it must get a buffer of its own (Node may
  // hand out a slice of a shared pool), as its loader would.
  let file;
  try {
    const bytes = readFileSync(argv[0]);
    file = new Uint8Array(new ArrayBuffer(bytes.length));
    file.set(bytes);
  } catch (err) {
    process.stderr.write(`safetensors-npm adapter: cannot load ${argv[0]}: ${errorMessage(err)}\n`);
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

await main(process.argv.slice(2));
