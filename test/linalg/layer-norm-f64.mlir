// Layer norm computed in f64 as torch-mlir decomposes it for precision: the f32 input is widened
// with arith.extf (exact), every statistic is an f64 op rounded once, and the result is narrowed
// with arith.truncf (round to nearest even).
// RUN: ptoc verify %s --trials 3 | FileCheck %s --check-prefix=VERIFY
// RUN: ptoc %s --emit=asm | FileCheck %s
// VERIFY: @layer_norm_f64: 3 trials (seed 0), compiled code matches the source bit for bit
// CHECK: TCVT
// CHECK: TRSQRT
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @layer_norm_f64(%x: tensor<256x128xf32>) -> tensor<256x128xf32> {
  %zero = arith.constant 0.0 : f64
  %n = arith.constant 128.0 : f64
  %eps = arith.constant 1.0e-05 : f64
  %e1 = tensor.empty() : tensor<256xf64>
  %z = linalg.fill ins(%zero : f64) outs(%e1 : tensor<256xf64>) -> tensor<256xf64>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<256x128xf32>) outs(%z : tensor<256xf64>) {
  ^bb0(%in: f32, %acc: f64):
    %w = arith.extf %in : f32 to f64
    %r = arith.addf %w, %acc : f64
    linalg.yield %r : f64
  } -> tensor<256xf64>
  %var_sum = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %sum : tensor<256x128xf32>, tensor<256xf64>) outs(%z : tensor<256xf64>) {
  ^bb0(%in: f32, %s: f64, %acc: f64):
    %w = arith.extf %in : f32 to f64
    %mu = arith.divf %s, %n : f64
    %d = arith.subf %w, %mu : f64
    %sq = arith.mulf %d, %d : f64
    %r = arith.addf %sq, %acc : f64
    linalg.yield %r : f64
  } -> tensor<256xf64>
  %e2 = tensor.empty() : tensor<256x128xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %sum, %var_sum : tensor<256x128xf32>, tensor<256xf64>, tensor<256xf64>) outs(%e2 : tensor<256x128xf32>) {
  ^bb0(%in: f32, %s: f64, %vs: f64, %o: f32):
    %w = arith.extf %in : f32 to f64
    %mu = arith.divf %s, %n : f64
    %var = arith.divf %vs, %n : f64
    %ve = arith.addf %var, %eps : f64
    %rs = math.rsqrt %ve : f64
    %d = arith.subf %w, %mu : f64
    %r = arith.mulf %d, %rs : f64
    %t = arith.truncf %r : f64 to f32
    linalg.yield %t : f32
  } -> tensor<256x128xf32>
  return %y : tensor<256x128xf32>
}
