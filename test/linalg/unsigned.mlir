// Unsigned integer ops on MLIR's signless i32, which ptoc keeps in signed S32 tiles: adding
// 2^31 (wrapping) maps the unsigned order onto the signed one, so maxui/minui, an unsigned
// compare and a maxui reduction are the signed ops on biased operands, biased back after.
// RUN: ptoc verify %s --trials 20 | FileCheck %s --check-prefix=VERIFY
// RUN: ptoc %s --emit=asm | FileCheck %s
// VERIFY: @unsigned: 20 trials (seed 0), compiled code matches the source bit for bit
// CHECK: TADDS
// CHECK: TMAX
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @unsigned(%x: tensor<16x32xi32>, %y: tensor<16x32xi32>) -> (tensor<16x32xi32>, tensor<16xi32>) {
  %seven = arith.constant 7 : i32
  %e = tensor.empty() : tensor<16x32xi32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<16x32xi32>, tensor<16x32xi32>) outs(%e : tensor<16x32xi32>) {
  ^bb0(%a: i32, %b: i32, %o: i32):
    %hi = arith.maxui %a, %b : i32
    %lo = arith.minui %a, %seven : i32
    %c = arith.cmpi ult, %a, %b : i32
    %s = arith.select %c, %hi, %lo : i32
    linalg.yield %s : i32
  } -> tensor<16x32xi32>
  %e1 = tensor.empty() : tensor<16xi32>
  %z = linalg.fill ins(%seven : i32) outs(%e1 : tensor<16xi32>) -> tensor<16xi32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%y : tensor<16x32xi32>) outs(%z : tensor<16xi32>) {
  ^bb0(%in: i32, %acc: i32):
    %u = arith.maxui %in, %acc : i32
    linalg.yield %u : i32
  } -> tensor<16xi32>
  return %r, %m : tensor<16x32xi32>, tensor<16xi32>
}
