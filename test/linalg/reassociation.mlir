// A float sum from an init other than +0.0 cannot start the ISA's fold, so it is refused
// (test/linalg/invalid-convert.mlir) unless --allow-reassociation lets the init join after the
// fold; the compile then says so at the op. verify reads the sum as the kernel folds it (its
// pto.fold_piece, here the whole row), so it still compares bit for bit.
// RUN: ptoc %s --allow-reassociation --verify-diagnostics --emit=asm | FileCheck %s
// RUN: ptoc verify %s --allow-reassociation --trials 3 | FileCheck %s --check-prefix=VERIFY
// VERIFY: @sum_from_one: 3 trials (seed 0), compiled code matches the source bit for bit
// CHECK: TROWSUM
// CHECK: TADDS
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @sum_from_one(%x: tensor<8x64xf32>) -> tensor<8xf32> {
  %one = arith.constant 1.0 : f32
  %e1 = tensor.empty() : tensor<8xf32>
  %z = linalg.fill ins(%one : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x64xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    // expected-remark@+1 {{--allow-reassociation: the init joins this sum after the ISA's fold from +0, which reassociates it; the result may differ from linalg's sequential fold}}
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}
