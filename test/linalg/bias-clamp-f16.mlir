// Bias (one per column) then clamp to [-1.5, 2.0] in f16, with NaN-propagating
// maximumf/minimumf around constants.
// RUN: ptoc verify %s --trials 3 | FileCheck %s --check-prefix=VERIFY
// RUN: ptoc %s --emit=asm | FileCheck %s
// VERIFY: @bias_clamp: 3 trials (seed 0), compiled code matches the source bit for bit
// CHECK: TCOLEXPANDADD
// CHECK: TMAXS
// CHECK: TMINS
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @bias_clamp(%x: tensor<1024x512xf16>, %b: tensor<512xf16>) -> tensor<1024x512xf16> {
  %lo = arith.constant -1.5 : f16
  %hi = arith.constant 2.0 : f16
  %e = tensor.empty() : tensor<1024x512xf16>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<1024x512xf16>, tensor<512xf16>) outs(%e : tensor<1024x512xf16>) {
  ^bb0(%a: f16, %c: f16, %o: f16):
    %s = arith.addf %a, %c : f16
    %l = arith.maximumf %s, %lo : f16
    %h = arith.minimumf %l, %hi : f16
    linalg.yield %h : f16
  } -> tensor<1024x512xf16>
  return %y : tensor<1024x512xf16>
}
