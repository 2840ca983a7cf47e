// Integer conversions as TCVTs: sitofp/uitofp round to nearest even, fptosi/fptoui truncate toward
// zero (poison out of range, which verify skips), extsi/extui/trunci widen or keep the low bits.
// Signless integers live in signed tiles, so the unsigned readings pass through the unsigned type
// of the same width; a comparison's i1 converts by selecting 0 or 1 (-1 signed).
// RUN: ptoc verify %s --trials 6 | FileCheck %s --check-prefix=VERIFY
// RUN: ptoc %s --emit=mlir -o /dev/null --mlir-print-ir-after=convert-linalg-to-pto 2>&1 | FileCheck %s
// VERIFY: @conversions: 6 trials (seed 0), compiled code matches the source bit for bit
// CHECK: "pto.tcvt"(%{{.*}}) : (!pto.tile<8x64xsi32>) -> !pto.tile<8x64xf32>
// CHECK: "pto.tcvt"(%{{.*}}) : (!pto.tile<8x64xsi32>) -> !pto.tile<8x64xui32>
// CHECK: "pto.tcvt"(%{{.*}}) : (!pto.tile<8x64xui32>) -> !pto.tile<8x64xf32>
// CHECK: "pto.tcvt"(%{{.*}}) : (!pto.tile<8x64xf32>) -> !pto.tile<8x64xsi32>
// CHECK: "pto.tsel"
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @conversions(%i: tensor<8x64xi32>, %f: tensor<8x64xf32>, %w: tensor<8x64xi64>)
    -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xi32>, tensor<8x64xi32>, tensor<8x64xi64>, tensor<8x64xi64>, tensor<8x64xi16>, tensor<8x64xf32>, tensor<8x64xi32>) {
  %ef = tensor.empty() : tensor<8x64xf32>
  %ei = tensor.empty() : tensor<8x64xi32>
  %el = tensor.empty() : tensor<8x64xi64>
  %es = tensor.empty() : tensor<8x64xi16>
  %r:9 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%i, %f, %w : tensor<8x64xi32>, tensor<8x64xf32>, tensor<8x64xi64>)
      outs(%ef, %ef, %ei, %ei, %el, %el, %es, %ef, %ei : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xi32>, tensor<8x64xi32>, tensor<8x64xi64>, tensor<8x64xi64>, tensor<8x64xi16>, tensor<8x64xf32>, tensor<8x64xi32>) {
  ^bb0(%a: i32, %x: f32, %l: i64, %o0: f32, %o1: f32, %o2: i32, %o3: i32, %o4: i64, %o5: i64, %o6: i16, %o7: f32, %o8: i32):
    %s = arith.sitofp %a : i32 to f32
    %u = arith.uitofp %a : i32 to f32
    %ts = arith.fptosi %x : f32 to i32
    %tu = arith.fptoui %x : f32 to i32
    %xs = arith.extsi %a : i32 to i64
    %xu = arith.extui %a : i32 to i64
    %n = arith.trunci %l : i64 to i16
    %zero = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %x, %zero : f32
    %pf = arith.uitofp %pos : i1 to f32
    %pi = arith.extsi %pos : i1 to i32
    linalg.yield %s, %u, %ts, %tu, %xs, %xu, %n, %pf, %pi : f32, f32, i32, i32, i64, i64, i16, f32, i32
  } -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xi32>, tensor<8x64xi32>, tensor<8x64xi64>, tensor<8x64xi64>, tensor<8x64xi16>, tensor<8x64xf32>, tensor<8x64xi32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %r#8 : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xi32>, tensor<8x64xi32>, tensor<8x64xi64>, tensor<8x64xi64>, tensor<8x64xi16>, tensor<8x64xf32>, tensor<8x64xi32>
}
