#!/usr/bin/env python3
"""Front-end and end-to-end cost of a ptoc binary in instructions counted by callgrind
(deterministic, so it stays meaningful on a loaded machine, unlike the wall times of
benches/vs-mlir-opt.sh).

Counts the whole process (`valgrind --tool=callgrind`, total Ir) of:
  front end, 1000 ops:   ptoc - --emit=mlir --pass-pipeline= < ops1000.mlir
                         (parse → import → export → print, no pass; ops1000.mlir is
                         `benches/gen_kernel.py 1000`, read from stdin so that its locations
                         do not name a temporary file: MLIR hashes location names, and a
                         random name moved the count by 0.1%)
  front end, softmax:    ptoc examples/softmax_rows.mlir --emit=mlir --pass-pipeline=
  end to end, softmax:   ptoc examples/softmax_rows.mlir -o out.bin   (default pipeline, ELF)
The end-to-end row also prints the count minus egg's `quanta::Instant::now` calls: the first one
calibrates quanta's clock in a loop bounded by wall time (the only part that varies from run to
run, by up to a million instructions; see benches/fuse_cost.py). Compare that column.

Usage: benches/front_cost.py [--ptoc PATH]
  Without --ptoc it builds the release binary (in $CARGO_TARGET_DIR or target/). --ptoc measures
  another build's binary, e.g. one of an older commit. Needs valgrind.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

# One reader of callgrind profiles for both cost scripts (this directory is on sys.path).
from fuse_cost import inclusive

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def release_binary():
    """Build the release ptoc and return its executable."""
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "ptoc"], cwd=ROOT, check=True)
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    return os.path.join(target, "release", "ptoc")


def count(profile_dir, name, command, stdin=None):
    """Total instructions of `command` under callgrind, and those of the clock calibration."""
    profile = os.path.join(profile_dir, f"{name}.out")
    run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={profile}",
                          *command], stdin=stdin, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, cwd=ROOT)
    if run.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{run.stderr}")
    total = int(re.search(r"Collected : (\d+)", run.stderr).group(1))
    return total, inclusive(profile, "quanta::instant::Instant::now")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ptoc")
    args = parser.parse_args()
    ptoc = os.path.abspath(args.ptoc) if args.ptoc else release_binary()
    with tempfile.TemporaryDirectory() as tmp:
        ops1000 = os.path.join(tmp, "ops1000.mlir")
        with open(ops1000, "w") as f:
            subprocess.run([sys.executable, os.path.join(ROOT, "benches", "gen_kernel.py"),
                            "1000"], check=True, stdout=f)
        softmax = "examples/softmax_rows.mlir"
        cases = [
            ("front end, 1000 ops", [ptoc, "-", "--emit=mlir", "--pass-pipeline="], ops1000),
            ("front end, softmax_rows", [ptoc, softmax, "--emit=mlir", "--pass-pipeline="], None),
            ("-o out.bin, softmax_rows", [ptoc, softmax, "-o", os.path.join(tmp, "out.bin")],
             None),
        ]
        print(f"{'instructions (callgrind Ir)':<28} {'total':>13} {'minus clock':>13}")
        for i, (label, command, stdin) in enumerate(cases):
            with open(stdin or os.devnull) as input_file:
                total, clock = count(tmp, f"case{i}", command, input_file)
            print(f"{label:<28} {total:>13,} {total - clock:>13,}")


if __name__ == "__main__":
    main()
