#!/usr/bin/env python3
"""Worked example of a stguard conform writer adapter (docs/writer-protocol.md).

The "writer" here is write_safetensors(), a small writer written with Python's
standard library, standing in for the library you want graded. Everything
below the line is the adapter: read the spec, call the writer, say whether it
wrote or refused.

    stguard conform --writer "python3 conformance/adapters/example/minimal_writer.py" \
        --name python-minimal-writer --html /tmp/matrix.html
"""
import base64
import json
import os
import sys

# Bits per element of each dtype.
BITS = {"BOOL": 8, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6, "U8": 8, "I8": 8,
        "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8, "F8_E4M3FNUZ": 8,
        "F8_E5M2FNUZ": 8, "I16": 16, "U16": 16, "F16": 16, "BF16": 16,
        "I32": 32, "U32": 32, "F32": 32, "C64": 64, "F64": 64, "I64": 64,
        "U64": 64}


def write_safetensors(tensors, metadata, path):
    """tensors: [(name, dtype, shape, bytes)]; metadata: {str: str} or None.
    Raises ValueError for what the format forbids; writes through a temporary
    file renamed into place."""
    names = set()
    for name, dtype, shape, data in tensors:
        if name in names or name == "__metadata__" or "\0" in name:
            raise ValueError(f"tensor name {name!r} is repeated or not allowed")
        names.add(name)
        if dtype not in BITS:
            raise ValueError(f"{name}: unknown dtype {dtype}")
        bits = BITS[dtype]
        for dim in shape:
            bits *= dim
        if bits >= 1 << 64 or bits % 8 or bits // 8 != len(data):
            raise ValueError(f"{name}: {len(data)} bytes do not fit {dtype} {shape}")
    for key, value in (metadata or {}).items():
        if not isinstance(value, str) or "\0" in key or "\0" in value:
            raise ValueError(f"metadata {key!r}: values are strings without U+0000")
    header, offset = {}, 0
    if metadata:
        header["__metadata__"] = metadata
    for name, dtype, shape, data in sorted(tensors, key=lambda t: t[0].encode()):
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode()
    text += b" " * (-len(text) % 8)
    temp = path + ".tmp"
    with open(temp, "wb") as f:
        f.write(len(text).to_bytes(8, "little") + text)
        for _, _, _, data in sorted(tensors, key=lambda t: t[0].encode()):
            f.write(data)
    os.replace(temp, path)


# ---- the adapter ----------------------------------------------------------
def main():
    spec_path, out_path = sys.argv[1], sys.argv[2]
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    tensors = [(t["name"], t["dtype"], t["shape"],
                bytes.fromhex(t["data_hex"]) if "data_hex" in t
                else base64.b64decode(t["data_base64"]))
               for t in spec["tensors"]]
    try:
        write_safetensors(tensors, spec.get("metadata"), out_path)
    except ValueError as error:  # the writer refused the spec
        print(json.dumps({"outcome": "refused", "error": str(error)}))
        return
    print(json.dumps({"outcome": "written"}))


if __name__ == "__main__":
    main()
