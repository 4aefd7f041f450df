// The adapter protocol (docs/adapter-protocol.md) for the bundled JavaScript
// readers: what every adapter does the same way, so that each adapter.mjs
// holds only how its library is called. Not a reader itself (no reader.json).
//
//   import { runAdapter, render, integerList, emit } from "../lib/protocol.mjs";
//   await runAdapter({ adapter: "my-reader", pkg: "my-package", here: kHere,
//                      check: async (path) => { ... emit({ verdict: "accept", tensors }); } });
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";

// In the persistent mode (--persistent) one process answers many files:
// emit() then writes its line and returns instead of ending the process.
let persistent = false;
let answered = false;

// The version of `pkg` installed in `here`/node_modules, or null.
export function installedVersion(here, pkg) {
  const manifest = join(here, "node_modules", ...pkg.split("/"), "package.json");
  try {
    const version = JSON.parse(readFileSync(manifest, "utf8")).version;
    return typeof version === "string" ? version : null;
  } catch {
    return null;
  }
}

function notInstalled(adapter, pkg, here) {
  process.stderr.write(
    `${adapter} adapter: ${pkg} is not installed in ${here}/node_modules ` +
      `(run "npm ci --no-audit --no-fund --ignore-scripts" there)\n`,
  );
  process.exitCode = 1;
}

// Text of any value for a protocol field that must be a string. Never throws
// (JSON.stringify can, on very deep nesting).
export function render(value) {
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
export function integerOrText(value) {
  if (typeof value === "number" && Number.isSafeInteger(value)) return value === 0 ? 0 : value;
  if (typeof value === "number" && Number.isInteger(value)) value = BigInt(value);
  if (typeof value === "bigint") {
    return value >= kMinJsonInteger && value <= kMaxJsonInteger ? value : value.toString();
  }
  return render(value);
}

export function integerList(value) {
  return Array.isArray(value) ? value.map(integerOrText) : [`not an array: ${render(value)}`];
}

export function errorMessage(err) {
  if (err instanceof Error) return err.message || err.name;
  return render(err);
}

// Lone UTF-16 surrogates (a header may escape one, "\ud800") become U+FFFD:
// JSON parsers such as the runner's reject them even when escaped, and the
// line would then count as the adapter's protocol error, not the reader's.
function wellFormed(text) {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");
}

// Prints the answer and, for one file per process, ends the process. Written by hand rather than with
// JSON.stringify, which cannot print a BigInt. U+2028/U+2029 are legal raw in
// JSON strings but end lines for some line readers; escaped, the output is
// one line for every consumer.
export function emit(object) {
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
  if (persistent) {
    // Writes to a pipe are synchronous on Linux: the line is out, whole,
    // before the next path is read.
    answered = true;
    process.stdout.write(`${line}\n`);
    return;
  }
  process.stdout.write(`${line}\n`, () => process.exit(0));
}

// --persistent: one path per line on stdin, one answer line each. A check
// that ends without an answer (it set process.exitCode, as for a file it
// cannot open) ends the process with that status, as the one-file mode
// would: the runner grades that file as a crash and starts a new process.
async function answerEachLine(check) {
  persistent = true;
  // The first use of Response or Headers loads Node's bundled HTTP client
  // (undici), which compiles its Wasm HTTP parser in the background. Under
  // the runner's address-space limit that compile fails (V8 reserves far
  // more address space for a Wasm memory than the limit allows): a one-file
  // process has exited by then, a persistent one would die of the unhandled
  // rejection a few files later. No adapter makes HTTP requests, so that one
  // failure is ignored; any other unhandled rejection ends the process with
  // status 1, as it would without this handler.
  process.on("unhandledRejection", (reason) => {
    const wasmParser =
      reason instanceof RangeError && /WebAssembly/.test(reason.message) && /lazyllhttp/.test(reason.stack ?? "");
    if (wasmParser) return;
    process.stderr.write(`${reason instanceof Error ? reason.stack : render(reason)}\n`);
    process.exit(1);
  });
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  for await (const path of lines) {
    answered = false;
    await check(path);
    if (!answered) process.exit(process.exitCode || 1);
  }
}

// The command line every adapter has: `node adapter.mjs FILE` runs
// check(FILE), which ends in emit(); `node adapter.mjs --persistent` runs
// check() on each path read from stdin (docs/adapter-protocol.md,
// "Persistent mode"); `node adapter.mjs --version` prints "PKG@VERSION"; a
// missing package exits 1 with a hint, a usage error 2.
export async function runAdapter({ adapter, pkg, here, check }) {
  const argv = process.argv.slice(2);
  if (argv.length === 1 && argv[0] === "--version") {
    const version = installedVersion(here, pkg);
    if (version === null) return notInstalled(adapter, pkg, here);
    process.stdout.write(`${pkg}@${version}\n`);
    return;
  }
  if (argv.length === 1 && argv[0] === "--persistent") {
    if (installedVersion(here, pkg) === null) return notInstalled(adapter, pkg, here);
    await answerEachLine(check);
    return;
  }
  if (argv.length !== 1 || argv[0].startsWith("--")) {
    process.stderr.write("usage: node adapter.mjs FILE | --persistent | --version\n");
    process.exitCode = 2;
    return;
  }
  if (installedVersion(here, pkg) === null) return notInstalled(adapter, pkg, here);
  await check(argv[0]);
}
