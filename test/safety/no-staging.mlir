// Parsing happens in memory: nothing is written under $TMPDIR (it used to stage every buffer in
// $TMPDIR/ptoc-<pid>-<n>.mlir, which a planted symlink or FIFO could hijack), and an unwritable
// or missing $TMPDIR changes nothing.
// RUN: rm -rf %t.tmp && mkdir %t.tmp
// RUN: env TMPDIR=%t.tmp ptoc %s -o %t.bin
// RUN: env TMPDIR=%t.tmp ptoc %s --split-input-file --emit=asm > /dev/null
// RUN: cat %s | env TMPDIR=%t.tmp ptoc - --emit=mlir > /dev/null
// RUN: env TMPDIR=%t.tmp ptoc run %s --arg x=%examples/softmax_rows.x.npy > /dev/null
// RUN: env TMPDIR=%t.tmp ptoc verify %s --trials 2 > /dev/null
// RUN: find %t.tmp -mindepth 1 | FileCheck %s --allow-empty --check-prefix=NOTHING
// NOTHING-NOT: {{.}}
// RUN: env TMPDIR=/nonexistent/ptoc-test ptoc %s -o %t.bin
// RUN: chmod 0500 %t.tmp && env TMPDIR=%t.tmp ptoc %s --emit=asm | FileCheck %s
// CHECK: BSTART.SFU TROWMAX, FP32

func.func @k(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x1xf32> {
  %m = "pto.trowmax"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<16x1xf32>
  return %m : !pto.tile<16x1xf32>
}
