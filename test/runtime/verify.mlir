// ptoc verify: each kernel compiled with the default pipeline (fusion on) and at -O0 matches the
// reference evaluator of its unoptimised source bit for bit on random inputs with edge values.
// RUN: ptoc verify %s --trials 60 --seed 7 | FileCheck %s
// RUN: ptoc verify %s --trials 30 --seed 3 -O0 | FileCheck %s
// CHECK: @softmax_rows: {{[0-9]+}} trials
// CHECK: @softmax_f16_widen: {{[0-9]+}} trials
// CHECK: @broadcast_clamp_s8: {{[0-9]+}} trials
// CHECK: @numpy_broadcast_bf16: {{[0-9]+}} trials
// CHECK: @column_normalise: {{[0-9]+}} trials
// CHECK: @shared_broadcast: {{[0-9]+}} trials
// CHECK: @reductions_u16: {{[0-9]+}} trials
// CHECK-NOT: MISMATCH

func.func @softmax_rows(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {
  %m = "pto.trowmax"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<16x1xf32>
  %d = "pto.trowexpandsub"(%x, %m) : (!pto.tile<16x64xf32>, !pto.tile<16x1xf32>) -> !pto.tile<16x64xf32>
  %e = "pto.texp"(%d) : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  %s = "pto.trowsum"(%e) : (!pto.tile<16x64xf32>) -> !pto.tile<16x1xf32>
  %r = "pto.trowexpanddiv"(%e, %s) : (!pto.tile<16x64xf32>, !pto.tile<16x1xf32>) -> !pto.tile<16x64xf32>
  return %r : !pto.tile<16x64xf32>
}

func.func @softmax_f16_widen(%x: !pto.tile<8x32xf16>) -> !pto.tile<8x32xf32> {
  %m = "pto.trowmax"(%x) : (!pto.tile<8x32xf16>) -> !pto.tile<8x1xf16>
  %e = "pto.trowexpandexpdif"(%x, %m) : (!pto.tile<8x32xf16>, !pto.tile<8x1xf16>) -> !pto.tile<8x32xf32>
  return %e : !pto.tile<8x32xf32>
}

func.func @broadcast_clamp_s8(%x: !pto.tile<4x16xsi8>, %lo: !pto.tile<4x1xsi8>, %hi: !pto.tile<1x16xsi8>) -> !pto.tile<4x16xsi8> {
  %a = "pto.trowexpand"(%lo) : (!pto.tile<4x1xsi8>) -> !pto.tile<4x16xsi8>
  %b = "pto.tmax"(%x, %a) : (!pto.tile<4x16xsi8>, !pto.tile<4x16xsi8>) -> !pto.tile<4x16xsi8>
  %c = "pto.tcolexpand"(%hi) : (!pto.tile<1x16xsi8>) -> !pto.tile<4x16xsi8>
  %r = "pto.tmin"(%c, %b) : (!pto.tile<4x16xsi8>, !pto.tile<4x16xsi8>) -> !pto.tile<4x16xsi8>
  return %r : !pto.tile<4x16xsi8>
}

func.func @numpy_broadcast_bf16(%x: !pto.tile<8x16xbf16>, %r: !pto.tile<8x1xbf16>, %c: !pto.tile<1x16xbf16>) -> !pto.tile<?x?xbf16> {
  %a = "pto.tmul"(%x, %r) : (!pto.tile<8x16xbf16>, !pto.tile<8x1xbf16>) -> !pto.tile<?x?xbf16>
  %b = "pto.tsub"(%c, %a) : (!pto.tile<1x16xbf16>, !pto.tile<?x?xbf16>) -> !pto.tile<?x?xbf16>
  return %b : !pto.tile<?x?xbf16>
}

func.func @column_normalise(%x: !pto.tile<8x32xf32>) -> !pto.tile<8x32xf32> {
  %s = "pto.tcolsum"(%x) : (!pto.tile<8x32xf32>) -> !pto.tile<1x32xf32>
  %e = "pto.tcolexpand"(%s) : (!pto.tile<1x32xf32>) -> !pto.tile<8x32xf32>
  %r = "pto.tdiv"(%x, %e) : (!pto.tile<8x32xf32>, !pto.tile<8x32xf32>) -> !pto.tile<8x32xf32>
  return %r : !pto.tile<8x32xf32>
}

func.func @shared_broadcast(%x: !pto.tile<8x16xf16>, %y: !pto.tile<8x16xf16>, %v: !pto.tile<8x1xf16>) -> (!pto.tile<8x16xf16>, !pto.tile<8x16xf16>) {
  %e = "pto.trowexpand"(%v) : (!pto.tile<8x1xf16>) -> !pto.tile<8x16xf16>
  %a = "pto.tadd"(%x, %e) : (!pto.tile<8x16xf16>, !pto.tile<8x16xf16>) -> !pto.tile<8x16xf16>
  %b = "pto.tmul"(%e, %y) : (!pto.tile<8x16xf16>, !pto.tile<8x16xf16>) -> !pto.tile<8x16xf16>
  return %a, %b : !pto.tile<8x16xf16>, !pto.tile<8x16xf16>
}

func.func @reductions_u16(%x: !pto.tile<4x8xui16>, %v: !pto.tile<4x1xui16>) -> (!pto.tile<4x1xui16>, !pto.tile<1x8xui32>, !pto.tile<4x1xui16>) {
  %e = "pto.trowexpand"(%v) : (!pto.tile<4x1xui16>) -> !pto.tile<4x8xui16>
  %m = "pto.trowmax"(%e) : (!pto.tile<4x8xui16>) -> !pto.tile<4x1xui16>
  %a = "pto.tcolargmin"(%x) : (!pto.tile<4x8xui16>) -> !pto.tile<1x8xui32>
  %p = "pto.trowprod"(%x) : (!pto.tile<4x8xui16>) -> !pto.tile<4x1xui16>
  return %m, %a, %p : !pto.tile<4x1xui16>, !pto.tile<1x8xui32>, !pto.tile<4x1xui16>
}
