#!/usr/bin/env python3
"""The pure-Python reader of the Python grading benchmark (python_grading.py):
parse the JSON header and hash each tensor's bytes, nothing else.

    answer(path)                  the function `python3 -m stguard conform` grades
    python3 python_reader.py FILE the same reader as a process-per-file adapter
"""
import hashlib
import json
import struct
import sys


def answer(path):
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    data = blob[8 + n:]
    metadata = header.pop("__metadata__", None)
    tensors = []
    for name, t in header.items():
        begin, end = t["data_offsets"]
        tensors.append({"name": name, "dtype": t["dtype"], "shape": t["shape"],
                        "data_offsets": [begin, end],
                        "sha256": hashlib.sha256(data[begin:end]).hexdigest()})
    out = {"verdict": "accept", "tensors": tensors}
    if metadata is not None:
        out["metadata"] = metadata
    return out


if __name__ == "__main__":
    try:
        result = answer(sys.argv[1])
    except Exception as error:  # whatever the reader raises is a rejection
        result = {"verdict": "reject", "error": f"{type(error).__name__}: {error}"}
    print(json.dumps(result))
