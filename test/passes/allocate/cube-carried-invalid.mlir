// The loop-carried CUBE tiles pto-allocate cannot place without a TMOV: a located error saying
// what the loop would need.
// RUN: ptoc %s --split-input-file --verify-diagnostics -o /dev/null

// The initial matrices are computed in the other order than iter_args carries them.
func.func @swapped(%a: memref<16x64xf32>, %b: memref<64x64xf32>, %c: memref<16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %a0 = "pto.tload"(%a, %c0, %c0) : (memref<16x64xf32>, index, index) -> !pto.tile<16x32xf32, layout=cube_m16>
  %b0 = "pto.tload"(%b, %c0, %c0) : (memref<64x64xf32>, index, index) -> !pto.tile<32x32xf32, layout=cube_n8>
  %b1 = "pto.tload"(%b, %c0, %c32) : (memref<64x64xf32>, index, index) -> !pto.tile<32x32xf32, layout=cube_n8>
  %d0 = "pto.tmatmul"(%a0, %b0) : (!pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<32x32xf32, layout=cube_n8>) -> !pto.tile<16x32xf32, layout=cube_m16>
  %e0 = "pto.tmatmul"(%a0, %b1) : (!pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<32x32xf32, layout=cube_n8>) -> !pto.tile<16x32xf32, layout=cube_m16>
  // expected-error@+1 {{cannot carry the CUBE tile %e0 across this loop boundary: the loop's CUBE tiles must be the last ones computed for it, in iter_args order (a CUBE tile has no TMOV that could put it in place)}}
  %d:2 = scf.for %k = %c32 to %c64 step %c32 iter_args(%x = %e0, %y = %d0) -> (!pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<16x32xf32, layout=cube_m16>) {
    scf.yield %x, %y : !pto.tile<16x32xf32, layout=cube_m16>, !pto.tile<16x32xf32, layout=cube_m16>
  }
  "pto.tstore"(%d#0, %c, %c0, %c0) : (!pto.tile<16x32xf32, layout=cube_m16>, memref<16x64xf32>, index, index) -> ()
  return
}
