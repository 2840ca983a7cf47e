# lit configuration for ptoc's regression tests (LLVM 22's lit and FileCheck).
# Run through `cargo test` (test/suite.rs), which passes the directory of the ptoc binary under
# test as --param ptoc_bin_dir=...; by hand:
#   /usr/lib/llvm-22/bin/lit -v test --param ptoc_bin_dir=target/debug
import os

import lit.formats

config.name = "ptoc"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".s", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "suite.rs", "random_kernels.rs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(
    lit_config.params.get("ptoc_out_dir", os.path.join(config.test_source_root, "..", "target", "lit")))

ptoc_bin_dir = lit_config.params.get("ptoc_bin_dir")
if not ptoc_bin_dir:
    lit_config.fatal("pass --param ptoc_bin_dir=<directory holding the ptoc binary>")
llvm_bin_dir = "/usr/lib/llvm-22/bin"
config.environment["PATH"] = os.pathsep.join(
    [os.path.abspath(ptoc_bin_dir), llvm_bin_dir, config.environment.get("PATH", os.environ["PATH"])])
config.substitutions.append(("%examples", os.path.join(config.test_source_root, "..", "examples")))
