"""Readers that misbehave in every way a Python reader can, for the tests:
each must come back as a grade, never as a crash of the caller."""

from __future__ import annotations

import ctypes
import os
import sys
import time


def segfault(path):
    ctypes.string_at(0)


def exits(path):
    os._exit(3)


def hangs(path):
    time.sleep(3600)


def returns_garbage(path):
    return {"verdict": "accept", "tensors": object()}


def returns_list(path):
    return [1, 2, 3]


def returns_nan(path):
    return {"verdict": "accept", "tensors": [], "x": float("nan")}


class OddError(Exception):
    def __str__(self):
        raise RuntimeError("no text for you")


def raises_odd(path):
    raise OddError()


def raises_system_exit(path):
    sys.exit("bye")


def prints_to_stdout(path):
    print("noise on stdout\n{not json")
    raise ValueError("rejected")


def rejects(path):
    raise ValueError("no")
