// Layer norm over rows in f32: mean and biased variance by sequential sums divided by the
// constant N (a division, not a multiplication by 1/N), then (x - mean) * rsqrt(var + eps).
// RUN: ptoc verify %s --trials 3 | FileCheck %s --check-prefix=VERIFY
// RUN: ptoc %s --emit=asm | FileCheck %s
// VERIFY: @layer_norm: 3 trials (seed 0), compiled code matches the source bit for bit
// CHECK: TROWSUM
// CHECK: TDIVS
// CHECK: TRSQRT
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#r1 = affine_map<(d0) -> (d0)>
func.func @layer_norm(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 128.0 : f32
  %eps = arith.constant 1.0e-05 : f32
  %e1 = tensor.empty() : tensor<64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x128xf32>) outs(%z : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %mean = linalg.generic {indexing_maps = [#r1, #r1], iterator_types = ["parallel"]} ins(%sum : tensor<64xf32>) outs(%e1 : tensor<64xf32>) {
  ^bb0(%s: f32, %o: f32):
    %q = arith.divf %s, %n : f32
    linalg.yield %q : f32
  } -> tensor<64xf32>
  %var_sum = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %mean : tensor<64x128xf32>, tensor<64xf32>) outs(%z : tensor<64xf32>) {
  ^bb0(%in: f32, %mu: f32, %acc: f32):
    %d = arith.subf %in, %mu : f32
    %sq = arith.mulf %d, %d : f32
    %r = arith.addf %sq, %acc : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64x128xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %mean, %var_sum : tensor<64x128xf32>, tensor<64xf32>, tensor<64xf32>) outs(%e2 : tensor<64x128xf32>) {
  ^bb0(%in: f32, %mu: f32, %vs: f32, %o: f32):
    %var = arith.divf %vs, %n : f32
    %ve = arith.addf %var, %eps : f32
    %rs = math.rsqrt %ve : f32
    %d = arith.subf %in, %mu : f32
    %r = arith.mulf %d, %rs : f32
    linalg.yield %r : f32
  } -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}
