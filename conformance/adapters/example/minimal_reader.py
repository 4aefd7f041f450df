#!/usr/bin/env python3
"""Worked example of a stguard conform adapter (conformance/adapters/README.md).

The "reader" here is read_safetensors(), a deliberately naive reader written
with Python's standard library, standing in for the library you want graded.
Everything below the line is the adapter: about fifteen lines.

    stguard conform --adapter "python3 conformance/adapters/example/minimal_reader.py" \
        --name python-minimal --html /tmp/matrix.html

With --persistent it answers every path read from stdin, one line each
(docs/adapter-protocol.md, "Persistent mode"). A reader directory whose
reader.json says
    "command": ["python3", "minimal_reader.py"],
    "persistent_command": ["python3", "minimal_reader.py", "--persistent"]
makes `stguard conform --reader DIR` start Python once per job instead of
once per file.
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
def answer(path):
    try:
        tensors = read_safetensors(path)
    except Exception as error:  # whatever the reader raises is a rejection
        return {"verdict": "reject", "error": f"{type(error).__name__}: {error}"}
    return {"verdict": "accept", "tensors": [
        {"name": name, "dtype": dtype, "shape": shape, "data_offsets": list(offsets),
         "sha256": hashlib.sha256(data).hexdigest()}
        for name, (dtype, shape, offsets, data) in tensors.items()]}


def main():
    if sys.argv[1:] == ["--persistent"]:
        for line in sys.stdin:
            # flush: the runner waits for each line before sending the next path.
            print(json.dumps(answer(line.rstrip("\n"))), flush=True)
        return
    print(json.dumps(answer(sys.argv[1])))


if __name__ == "__main__":
    main()
