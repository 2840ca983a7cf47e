#!/usr/bin/env python3
"""Fusion cost in instructions counted by callgrind (deterministic, so it stays meaningful on a
loaded machine, unlike the wall and CPU times of `cargo bench -p ptoc-passes --bench fuse`).

Runs the `fuse` bench binary once per size in criterion's `--test` mode (each benchmark once)
under `valgrind --tool=callgrind` and prints the instructions of `fuse_function` on the synthetic
kernel (passes/src/fuse/synth.rs), minus those of egg's `quanta::Instant::now` calls: the first
one calibrates quanta's clock, once per process, in a loop bounded by wall time (6 to 13 million
instructions from run to run, the only part of the pass that varies). The kernel's construction
and criterion's own work are not counted.

Usage: benches/fuse_cost.py [--bench PATH] [SIZE...]   (sizes of the bench: 100 1000 10000 100000)
  Without --bench it builds the bench (in $CARGO_TARGET_DIR or target/). --bench measures
  another build's binary, e.g. one of an older commit. Needs valgrind.
"""
import argparse
import json
import os
import re
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def bench_binary():
    """Build the fuse bench and return its executable."""
    out = subprocess.run(
        ["cargo", "bench", "-q", "-p", "ptoc-passes", "--bench", "fuse", "--no-run",
         "--message-format=json"],
        cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg.get("executable") \
                and msg["target"]["name"] == "fuse":
            return msg["executable"]
    raise SystemExit("cargo built no fuse bench executable")


def inclusive(profile, function):
    """Inclusive instructions of `function` (an exact symbol) in a callgrind profile, 0 if absent."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", profile],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    total = 0
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+\S*?:(.*) \[", line)
        if m and m.group(2) == function:
            total += int(m.group(1).replace(",", ""))
    return total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bench")
    parser.add_argument("sizes", nargs="*", type=int, default=[10_000, 100_000])
    args = parser.parse_args()
    bench = args.bench or bench_binary()
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            profile = os.path.join(tmp, f"fuse{size}.out")
            subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={profile}",
                            bench, "--test", f"pto-fuse/{size}$"],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            fuse = inclusive(profile, "ptoc_passes::fuse::fuse_function")
            if fuse == 0:
                raise SystemExit(f"no fuse_function in the profile of size {size}")
            clock = inclusive(profile, "quanta::instant::Instant::now")
            print(f"{size} ops: {fuse - clock} instructions "
                  f"(fuse_function {fuse}, clock calibration {clock})")


if __name__ == "__main__":
    main()
