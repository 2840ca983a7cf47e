// `ptoc run` and `ptoc verify` on an `.mlir` take every option `ptoc -o` takes. Two
// 16x1024 f32 tiles (64 KiB per PE each) are live together at the TADD: with the default mask
// 1111 they need 2 x 4 x 64 KiB = 512 KiB of the core's 256 KiB, whatever the allocator does;
// with --pe-mask=0001 they need 128 KiB.
// RUN: not ptoc verify %s --trials 2 2>&1 | FileCheck %s --check-prefix=FULL
// FULL: compile-options.mlir:26:8: error: {{.*}}524288 bytes of tile capacity with mask 1111 {{.*}}the core has 262144; the tiles alive at once at {{.*}}compile-options.mlir:27:8 alone need 786432 bytes, so no allocation of this order fits; a narrower --pe-mask or smaller tiles would
// RUN: ptoc verify %s --trials 2 --pe-mask=0001 | FileCheck %s --check-prefix=VERIFY
// VERIFY: @add_rows: 2 trials (seed 0), compiled code matches the source bit for bit
// The IR printers and statistics print to standard error, as for `ptoc -o`.
// RUN: ptoc run %s --pe-mask=0001 --mlir-print-ir-after=pto-verify --pass-statistics --format json 2>%t.err | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=SIDE < %t.err
// RUN: FileCheck %s --check-prefix=STATS < %t.err
// RUN: ptoc run %s --pe-mask=0001 --format json | FileCheck %s --check-prefix=OUT
// RUN: ptoc verify %s --trials 2 --pe-mask=0001 -O0 --target-profile=absolute | FileCheck %s --check-prefix=VERIFY
// RUN: ptoc %s --pe-mask=0001 -o %t.bin
// RUN: not ptoc run %t.bin --pe-mask=0001 -O1 2>&1 | FileCheck %s --check-prefix=OBJECT
// OBJECT: error: {{.*}}.bin is a compiled object, so -O, --pe-mask cannot apply; pass them to `ptoc -o` when compiling it, or run the `.mlir` source
// RUN: ptoc run %t.bin --format json | FileCheck %s --check-prefix=OUT
// OUT: {"kernel":"add_rows","status":"ok"
// SIDE: // -----// IR Dump After PtoVerify (pto-verify)
// SIDE: func.func @add_rows
// STATS: Pass statistics report
func.func @add_rows(%x: memref<16x1024xf32>, %y: memref<16x1024xf32>, %out: memref<16x1024xf32>) {
  %c0 = arith.constant 0 : index
  %a = "pto.tload"(%x, %c0, %c0) : (memref<16x1024xf32>, index, index) -> !pto.tile<16x1024xf32>
  %b = "pto.tload"(%y, %c0, %c0) : (memref<16x1024xf32>, index, index) -> !pto.tile<16x1024xf32>
  %s = "pto.tadd"(%a, %b) : (!pto.tile<16x1024xf32>, !pto.tile<16x1024xf32>) -> !pto.tile<16x1024xf32>
  "pto.tstore"(%s, %out, %c0, %c0) : (!pto.tile<16x1024xf32>, memref<16x1024xf32>, index, index) -> ()
  return
}
