// amax by rows with arith.maximumf, which propagates NaN where the ISA's MAX returns the number:
// ptoc selects the NaN back in (TCMP + TSEL around a NaN-only sum), unless told there are none.
// RUN: ptoc verify %s --trials 8 | FileCheck %s --check-prefix=VERIFY
// RUN: ptoc %s --emit=asm | FileCheck %s
// RUN: ptoc %s --emit=asm --assume-no-nans | FileCheck %s --check-prefix=NONAN
// VERIFY: @amax: 8 trials (seed 0), compiled code matches the source bit for bit
// CHECK: TROWMAX
// CHECK: TCMP
// CHECK: TSEL
// NONAN: TROWMAX
// NONAN-NOT: TCMP
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @amax(%x: tensor<16x64xf32>) -> tensor<16xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e1 = tensor.empty() : tensor<16xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<16x64xf32>) outs(%mi : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  return %m : tensor<16xf32>
}
