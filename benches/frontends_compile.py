#!/usr/bin/env python3
"""Compile time on real ML-frontend IR: ptoc against IREE's CPU compiler on the same files.

For each test/frontends/Inputs/<name>.mlir (torch-mlir's linalg-on-tensors output of an ONNX
model, as generate.py made it), the median wall time of RUNS process runs of

  ptoc NAME.mlir -o out.bin                       (reciprocal with --strip-assertions)
  iree-compile --iree-hal-target-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic
               NAME.mlir -o out.vmfb

and their ratio (ptoc / iree-compile; below 1 is ptoc faster), then the geometric mean of the
ratios. Both compile the whole program to something that runs: ptoc to PTO words in an ELF
object, IREE to a VM module with x86-64 code. A benchmark, not a test: nothing is asserted.

Usage: benches/frontends_compile.py [RUNS=5] [--ptoc PATH] [--iree-compile PATH]
  ptoc: $CARGO_TARGET_DIR (or target)/release/ptoc, built with cargo build --release -p ptoc;
  iree-compile: .venv-frontends/bin/iree-compile (pip install iree-base-compiler), else PATH.
"""
import argparse
import glob
import math
import os
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INPUTS = os.path.join(ROOT, "test", "frontends", "Inputs")
ASSERTED = {"reciprocal"}


def median_time(cmd, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    venv_iree = os.path.join(ROOT, ".venv-frontends", "bin", "iree-compile")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="?", type=int, default=5)
    parser.add_argument("--ptoc", default=os.path.join(target, "release", "ptoc"))
    parser.add_argument("--iree-compile", dest="iree",
                        default=venv_iree if os.path.exists(venv_iree) else "iree-compile")
    args = parser.parse_args()
    names = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(INPUTS, "*.mlir"))
                   if not p.endswith(".iree-input.mlir"))
    ratios = []
    print(f"{'model':<14} {'ptoc ms':>9} {'iree ms':>9} {'ratio':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            src = os.path.join(INPUTS, name + ".mlir")
            ptoc = [args.ptoc, src, "-o", os.path.join(tmp, "out.bin")]
            if name in ASSERTED:
                ptoc.append("--strip-assertions")
            iree = [args.iree, "--iree-hal-target-backends=llvm-cpu",
                    "--iree-llvmcpu-target-cpu=generic", src, "-o", os.path.join(tmp, "out.vmfb")]
            t_ptoc = median_time(ptoc, args.runs)
            t_iree = median_time(iree, args.runs)
            ratios.append(t_ptoc / t_iree)
            print(f"{name:<14} {t_ptoc * 1e3:9.1f} {t_iree * 1e3:9.1f} {t_ptoc / t_iree:7.3f}")
    geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"geometric mean ratio (ptoc / iree-compile) over {len(ratios)} files: {geomean:.3f}")


if __name__ == "__main__":
    main()
