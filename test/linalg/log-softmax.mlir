// Log-softmax by rows: x - max - log(sum(exp(x - max))), with math.log computed like exp (in
// binary64, rounded once). x - max feeds both exp and the final subtraction, so fusion keeps
// one TROWEXPANDSUB rather than recomputing it inside a TROWEXPANDEXPDIF.
// RUN: ptoc verify %s --trials 3 | FileCheck %s --check-prefix=VERIFY
// RUN: ptoc %s --emit=asm | FileCheck %s
// VERIFY: @log_softmax: 3 trials (seed 0), compiled code matches the source bit for bit
// CHECK: TROWEXPANDSUB
// CHECK: TEXP
// CHECK: TROWSUM
// CHECK: TLOG
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @log_softmax(%x: tensor<32x512xf32>) -> tensor<32x512xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e1 = tensor.empty() : tensor<32xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<32xf32>) -> tensor<32xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<32x512xf32>) outs(%mi : tensor<32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<32xf32>
  %e2 = tensor.empty() : tensor<32x512xf32>
  %d = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<32x512xf32>, tensor<32xf32>) outs(%e2 : tensor<32x512xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<32x512xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32xf32>) -> tensor<32xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%d : tensor<32x512xf32>) outs(%si : tensor<32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %e = math.exp %in : f32
    %r = arith.addf %e, %acc : f32
    linalg.yield %r : f32
  } -> tensor<32xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%d, %s : tensor<32x512xf32>, tensor<32xf32>) outs(%e2 : tensor<32x512xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %l = math.log %b : f32
    %r = arith.subf %a, %l : f32
    linalg.yield %r : f32
  } -> tensor<32x512xf32>
  return %y : tensor<32x512xf32>
}
