// stguard conform adapter for @huggingface/hub's safetensors header parser
// (parseSafetensorsMetadata). The library only reads files from the Hub over
// HTTP, so it gets a fetch() that answers from the local file the way a Hub
// server would: the size probe, then byte ranges. Its verdict is the verdict;
// this adapter adds no checks of its own (see README.md).
//
//   node adapter.mjs FILE       one JSON line: {"verdict", "error"|"tensors"}
//   node adapter.mjs --persistent  the same for each path read from stdin
//   node adapter.mjs --version  "@huggingface/hub@<installed version>"
import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

import { emit, errorMessage, integerList, render, runAdapter } from "../lib/protocol.mjs";

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

async function check(path) {
  const { parseSafetensorsMetadata } = await import(kPackage);

  let fd;
  let size;
  try {
    fd = openSync(path, "r");
    const stat = fstatSync(fd);
    // Reads must not fail under the library: that would pass for its verdict.
    if (!stat.isFile()) throw new Error("not a regular file");
    size = stat.size;
  } catch (err) {
    process.stderr.write(`huggingface-hub adapter: cannot open ${path}: ${errorMessage(err)}\n`);
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

await runAdapter({ adapter: "huggingface-hub", pkg: kPackage, here: kHere, check });
