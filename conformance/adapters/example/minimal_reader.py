#!/usr/bin/env python3
"""Worked example of a stguard conform adapter (conformance/adapters/README.md).

The "reader" here is read_safetensors(), a deliberately naive reader written
with Python's standard library, standing in for the library you want graded.
Everything below the line is the adapter: about fifteen lines.

    stguard conform --adapter "python3 conformance/adapters/example/minimal_reader.py" \
        --name python-minimal --html /tmp/matrix.html
"""
import hashlib
import json
import struct
import sys


def read_safetensors(path):
    """A naive reader: returns {name: (dtype, shape, (begin, end), bytes)}."""
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    data = blob[8 + n:]
    header.pop("__metadata__", None)
    return {name: (t["dtype"], t["shape"], tuple(t["data_offsets"]),
                   data[t["data_offsets"][0]:t["data_offsets"][1]])
            for name, t in header.items()}


# ---- the adapter ----------------------------------------------------------
def main():
    try:
        tensors = read_safetensors(sys.argv[1])
    except Exception as error:  # whatever the reader raises is a rejection
        print(json.dumps({"verdict": "reject", "error": f"{type(error).__name__}: {error}"}))
        return
    print(json.dumps({"verdict": "accept", "tensors": [
        {"name": name, "dtype": dtype, "shape": shape, "data_offsets": list(offsets),
         "sha256": hashlib.sha256(data).hexdigest()}
        for name, (dtype, shape, offsets, data) in tensors.items()]}))


if __name__ == "__main__":
    main()
