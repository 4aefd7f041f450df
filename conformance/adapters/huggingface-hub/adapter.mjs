// stguard conform adapter for @huggingface/hub's safetensors header parser
// (parseSafetensorsMetadata). The library only reads files from the Hub over
// HTTP, so it gets a fetch() that answers from the local file the way a Hub
// server would: the size probe, then byte ranges. Its verdict is the verdict;
// this adapter adds no checks of its own (see README.md).
//
//   node adapter.mjs FILE       one JSON line: {"verdict", "error"|"tensors"}
//   node adapter.mjs --version  "@huggingface/hub@<installed version>"
import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const kPackage = "@huggingface/hub";
const kHere = dirname(fileURLToPath(import.meta.url));
// .invalid never resolves: nothing can reach a network even if a request
// slipped past the custom fetch.
const kHubUrl = "https://hub.invalid";
const kRepo = "stguard/local";
// Must end in ".safetensors": the library picks single-file parsing by name.
const kPath = "model.safetensors";
const kFileUrl = `${kHubUrl}/${kRepo}/resolve/main/${kPath}`;
const kEtag = '"stguard-local-file"';

function installedVersion() {
  const manifest = join(kHere, "node_modules", ...kPackage.split("/"), "package.json");
  try {
    const version = JSON.parse(readFileSync(manifest, "utf8")).version;
    return typeof version === "string" ? version : null;
  } catch {
    return null;
  }
}

function notInstalled() {
  process.stderr.write(
    `huggingface-hub adapter: ${kPackage} is not installed in ${kHere}/node_modules ` +
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

function readRange(fd, begin, end) {
  const bytes = Buffer.alloc(Math.max(0, end - begin));
  let done = 0;
  while (done < bytes.length) {
    const got = readSync(fd, bytes, done, bytes.length - done, begin + done);
    if (got === 0) break;
    done += got;
  }
  return bytes.subarray(0, done);
}

// A fetch() serving the local file at kFileUrl like an HTTP server with range
// support (RFC 9110 section 14): 206 with the range clipped at EOF, 416 when
// the range starts at or past EOF, 200 with the whole file when there is no
// Range or it is malformed (servers ignore an invalid Range).
function makeLocalFetch(fd, size) {
  const headersFor = (extra) => ({ ETag: kEtag, "Accept-Ranges": "bytes", ...extra });
  return async function localFetch(input, init) {
    const url = typeof input === "string" || input instanceof URL ? String(input) : String(input?.url);
    if (url !== kFileUrl) {
      return new Response("Entry not found", {
        status: 404,
        headers: { "Content-Type": "text/plain", "X-Error-Code": "EntryNotFound" },
      });
    }
    const range = new Headers(init?.headers).get("range");
    const match = range === null ? null : /^bytes=(\d+)-(\d*)$/.exec(range.trim());
    const valid = match !== null && (match[2] === "" || BigInt(match[2]) >= BigInt(match[1]));
    if (!valid) {
      return new Response(readRange(fd, 0, size), {
        status: 200,
        headers: headersFor({ "Content-Type": "application/octet-stream", "Content-Length": String(size) }),
      });
    }
    const first = BigInt(match[1]);
    if (first >= BigInt(size)) {
      return new Response("Requested Range Not Satisfiable", {
        status: 416,
        headers: headersFor({ "Content-Type": "text/plain", "Content-Range": `bytes */${size}` }),
      });
    }
    const lastWanted = match[2] === "" ? BigInt(size - 1) : BigInt(match[2]);
    const last = lastWanted < BigInt(size - 1) ? Number(lastWanted) : size - 1;
    const begin = Number(first);
    return new Response(readRange(fd, begin, last + 1), {
      status: 206,
      headers: headersFor({
        "Content-Type": "application/octet-stream",
        "Content-Length": String(last + 1 - begin),
        "Content-Range": `bytes ${begin}-${last}/${size}`,
      }),
    });
  };
}

function errorMessage(err) {
  if (err instanceof Error) return err.message || err.name;
  return render(err);
}

// The library returns the header but not where the data buffer starts; it
// starts after the 8-byte prefix and the N header bytes the library read
// (an accepted header has 0 < N <= 25,000,000, so N is exact as a Number).
function dataStart(fd) {
  const prefix = readRange(fd, 0, 8);
  return prefix.length < 8 ? 8 : 8 + Number(prefix.readBigUInt64LE(0));
}

// sha256 of file bytes [start+begin, start+end), clipped to the file: the
// parser never reads tensor data, so these are the bytes a caller would read
// at the offsets it reported. Non-integer offsets (possible only where the
// library skipped its checks) hash the empty range.
function tensorSha256(fd, size, start, offsets) {
  let from = 0;
  let to = 0;
  if (Array.isArray(offsets) && Number.isInteger(offsets[0]) && Number.isInteger(offsets[1])) {
    const clip = (x) => Math.min(Math.max(x, 0), size);
    from = clip(start + offsets[0]);
    to = clip(start + offsets[1]);
  }
  const hash = createHash("sha256");
  const kChunk = 1 << 20;
  for (let at = from; at < to; at += kChunk) {
    const bytes = readRange(fd, at, Math.min(to, at + kChunk));
    if (bytes.length === 0) break;
    hash.update(bytes);
  }
  return hash.digest("hex");
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
  const { parseSafetensorsMetadata } = await import(kPackage);

  let fd;
  let size;
  try {
    fd = openSync(argv[0], "r");
    const stat = fstatSync(fd);
    // Reads must not fail under the library: that would pass for its verdict.
    if (!stat.isFile()) throw new Error("not a regular file");
    size = stat.size;
  } catch (err) {
    process.stderr.write(`huggingface-hub adapter: cannot open ${argv[0]}: ${errorMessage(err)}\n`);
    process.exitCode = 2;
    return;
  }
  let parsed;
  try {
    parsed = await parseSafetensorsMetadata({
      repo: { type: "model", name: kRepo },
      path: kPath,
      hubUrl: kHubUrl,
      fetch: makeLocalFetch(fd, size),
    });
  } catch (err) {
    closeSync(fd);
    emit({ verdict: "reject", error: errorMessage(err) });
    return;
  }

  const header = parsed.header;
  const start = dataStart(fd);
  const tensors = [];
  // The library itself sets __metadata__ aside (it is not a tensor); every
  // other own key of the header it returns is a tensor to its callers.
  const entries = header !== null && typeof header === "object" ? Object.entries(header) : [];
  for (const [name, info] of entries) {
    if (name === "__metadata__") continue;
    const fields = info !== null && typeof info === "object" ? info : {};
    tensors.push({
      name,
      dtype: render(fields.dtype),
      shape: integerList(fields.shape),
      data_offsets: integerList(fields.data_offsets),
      sha256: tensorSha256(fd, size, start, fields.data_offsets),
    });
  }
  closeSync(fd);
  emit({ verdict: "accept", tensors });
}

await main(process.argv.slice(2));
