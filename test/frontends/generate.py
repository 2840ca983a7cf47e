#!/usr/bin/env python3
"""Regenerates test/frontends/Inputs/<name>.onnx and <name>.mlir from models.py.

For each model: onnx.save, then IREE's ONNX importer and torch-mlir's two pipelines as IREE
ships them (iree-base-compiler, pinned below):

    iree-import-onnx NAME.onnx -o NAME.torch.mlir
    iree-opt --pass-pipeline='builtin.module(torch-onnx-to-torch-backend-pipeline,
             torch-backend-to-linalg-on-tensors-backend-pipeline)' NAME.torch.mlir -o NAME.mlir

and, for softmax only, IREE's own input phase (iree-compile --iree-input-type=onnx
--compile-to=input), whose ABI-wrapped output ptoc refuses. The files are checked in exactly as
the tools print them; the lit tests beside this script (*.test) run ptoc on them. `generate.py --check` regenerates into a temporary
directory and fails if any checked-in file differs.

Usage: .venv-frontends/bin/python test/frontends/generate.py [--check]
(the venv: python3 -m venv .venv-frontends && .venv-frontends/bin/pip install
 iree-base-compiler==3.13.0 onnx==1.23.2 numpy)
"""

import argparse
import filecmp
import os
import subprocess
import sys
import tempfile

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import models  # noqa: E402

PIPELINE = (
    "builtin.module(torch-onnx-to-torch-backend-pipeline,"
    "torch-backend-to-linalg-on-tensors-backend-pipeline)"
)
IREE_VERSION = "3.13.0"


def tool(name):
    """`name` beside this Python (the venv's bin), else on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), name)
    return here if os.path.exists(here) else name


def generate(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, build in models.MODELS.items():
            model_path = os.path.join(out_dir, name + ".onnx")
            onnx.save(build(), model_path)
            torch_path = os.path.join(tmp, name + ".torch.mlir")
            subprocess.run([tool("iree-import-onnx"), model_path, "-o", torch_path], check=True)
            subprocess.run(
                [
                    tool("iree-opt"),
                    "--pass-pipeline=" + PIPELINE,
                    torch_path,
                    "-o",
                    os.path.join(out_dir, name + ".mlir"),
                ],
                check=True,
            )
        # IREE's own input phase wraps the program in its ABI (util.func, hal buffer views):
        # ptoc refuses it with a note naming the pipelines above (iree-wrapped.test).
        subprocess.run(
            [
                tool("iree-compile"),
                "--iree-input-type=onnx",
                "--compile-to=input",
                os.path.join(tmp, "softmax.torch.mlir"),
                "-o",
                os.path.join(out_dir, "softmax.iree-input.mlir"),
            ],
            check=True,
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    try:
        from iree.compiler import version

        found = version.VERSION
    except Exception:  # the version module's layout is IREE's; a missing one is a warning
        found = None
    if found is not None and not found.startswith(IREE_VERSION):
        print(f"warning: iree-base-compiler {found}, files were made with {IREE_VERSION}")
    inputs = os.path.join(HERE, "Inputs")
    if not args.check:
        generate(inputs)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        generate(tmp)
        names = sorted(os.listdir(tmp))
        _, mismatch, errors = filecmp.cmpfiles(inputs, tmp, names, shallow=False)
        extra = sorted(set(os.listdir(inputs)) - set(names))
        for n in mismatch + errors:
            print(f"differs: Inputs/{n}")
        for n in extra:
            print(f"not generated: Inputs/{n}")
        return 1 if mismatch or errors or extra else 0


if __name__ == "__main__":
    sys.exit(main())
