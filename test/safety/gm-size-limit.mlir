// A GM kernel may declare memrefs far larger than the host can hold (1e8 x 1e8 f32 is 40 PB):
// it compiles (a device has its own GM), but `ptoc run` and `ptoc verify` refuse it before
// allocating anything instead of aborting on a failed allocation. The limit is 1 GiB of memrefs
// per run (exec::GM_LIMIT_BYTES); 2 x 1e16 elements x 4 bytes = 8e16 bytes.
// RUN: ptoc %s -o %t.bin
// RUN: not ptoc run %t.bin 2>&1 | FileCheck %s
// RUN: not ptoc verify %s --trials 1 2>&1 | FileCheck %s
// CHECK: error: kernel 'huge' needs 80000000000000000 bytes of global memory for its memrefs; the interpreter holds at most 1073741824
func.func @huge(%x: memref<100000000x100000000xf32>, %y: memref<100000000x100000000xf32>) {
  %c0 = arith.constant 0 : index
  %t = "pto.tload"(%x, %c0, %c0) : (memref<100000000x100000000xf32>, index, index) -> !pto.tile<1x8xf32>
  "pto.tstore"(%t, %y, %c0, %c0) : (!pto.tile<1x8xf32>, memref<100000000x100000000xf32>, index, index) -> ()
  return
}
