// arith.cmpf predicates that no single TCMP relation gives: `one` (ordered and unequal) is lt or
// gt, `ueq` its negation; `ord`/`uno` of two values test each for NaN (x != x). A select over
// such a predicate is two TSELs: t where the second relation holds, then t where the first does.
// RUN: ptoc verify %s --trials 6 | FileCheck %s --check-prefix=VERIFY
// RUN: ptoc %s --emit=asm | FileCheck %s
// VERIFY: @two_relations: 6 trials (seed 0), compiled code matches the source bit for bit
// The ueq pair is the one pair (fusion shares the two TCMPs), so four TCMPs in all.
// CHECK-COUNT-1: CMode=LT
// CHECK-COUNT-1: CMode=GT
// CHECK-COUNT-2: CMode=NE
// CHECK-NOT: TCMP
// CHECK: TSEL
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @two_relations(%x: tensor<16x64xf32>, %y: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>) {
  %e = tensor.empty() : tensor<16x64xf32>
  %r:4 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e, %e, %e, %e : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o0: f32, %o1: f32, %o2: f32, %o3: f32):
    %one = arith.cmpf one, %a, %b : f32
    %ueq = arith.cmpf ueq, %a, %b : f32
    %ord = arith.cmpf ord, %a, %b : f32
    %uno = arith.cmpf uno, %a, %b : f32
    %s0 = arith.select %one, %a, %b : f32
    %s1 = arith.select %ueq, %a, %b : f32
    %s2 = arith.select %ord, %a, %b : f32
    %s3 = arith.select %uno, %a, %b : f32
    linalg.yield %s0, %s1, %s2, %s3 : f32, f32, f32, f32
  } -> (tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>
}
