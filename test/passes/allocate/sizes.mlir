// pto-allocate: SizeCodes and derived rows. Fresh tiles take the smallest SizeCode holding their
// written shape; full-shape results the one giving exactly their source's rows (twice the
// capacity for a mixed EXPDIF); a fresh tile grows when an elementwise partner derives more rows.
// The written types stay as they are: pto.rows carries the derived rows.
// RUN: ptoc %s --target-profile=absolute --split-input-file --pass-pipeline=pto-allocate --emit=mlir | FileCheck %s

// 5x64xf32 is 1280 bytes: SizeCode 5 (2 KiB) derives 8 rows; the forced result follows it.
// CHECK-LABEL: func.func @smallest
// CHECK-SAME:    %arg0: !pto.tile<5x64xf32> {pto.dst = "T#1", pto.rows = 8 : i64, pto.tsize = 5 : i64}
// CHECK-SAME:    %arg1: !pto.tile<5x1xf32> {pto.dst = "T#2", pto.rows = 32 : i64, pto.tsize = 1 : i64}
// CHECK-NEXT:    "pto.trowexpandmul"(%arg0, %arg1) {pto.dst = "T#3", pto.rows = 8 : i64, pto.tsize = 5 : i64} : (!pto.tile<5x64xf32>, !pto.tile<5x1xf32>) -> !pto.tile<5x64xf32>
func.func @smallest(%x: !pto.tile<5x64xf32>, %v: !pto.tile<5x1xf32>) -> !pto.tile<5x64xf32> {
  %r = "pto.trowexpandmul"(%x, %v) : (!pto.tile<5x64xf32>, !pto.tile<5x1xf32>) -> !pto.tile<5x64xf32>
  return %r : !pto.tile<5x64xf32>
}

// -----

// FP16 source, 2 columns, 32 rows: 128 B; the FP32 result needs 256 B for the same 32 rows.
// CHECK-LABEL: func.func @mixed_expdif
// CHECK-SAME:    {pto.dst = "T#1", pto.rows = 32 : i64, pto.tsize = 1 : i64}
// CHECK:         "pto.tcolexpandexpdif"(%arg0, %arg1) {pto.dst = "T#3", pto.rows = 32 : i64, pto.tsize = 2 : i64}
func.func @mixed_expdif(%x: !pto.tile<32x2xf16>, %v: !pto.tile<1x2xf16>) -> !pto.tile<32x2xf32> {
  %r = "pto.tcolexpandexpdif"(%x, %v) : (!pto.tile<32x2xf16>, !pto.tile<1x2xf16>) -> !pto.tile<32x2xf32>
  return %r : !pto.tile<32x2xf32>
}

// -----

// %e is forced to the 16 rows its FP16 source derives; %y (FP32, 8 rows at 128 B) grows to
// 256 B so the TADD sources match, and %z, forced from %y, follows.
// CHECK-LABEL: func.func @grow
// CHECK-SAME:    %arg2: !pto.tile<5x4xf32> {pto.dst = "T#3", pto.rows = 16 : i64, pto.tsize = 2 : i64}
// CHECK-NEXT:    "pto.trowexpandexpdif"(%arg0, %arg1) {pto.dst = "T#4", pto.rows = 16 : i64, pto.tsize = 2 : i64}
// CHECK-NEXT:    "pto.texp"(%arg2) {pto.dst = "T#5", pto.rows = 16 : i64, pto.tsize = 2 : i64}
// CHECK-NEXT:    "pto.tadd"(%0, %1) {pto.dst = "T#6", pto.rows = 16 : i64, pto.tsize = 2 : i64}
func.func @grow(%x: !pto.tile<5x4xf16>, %v: !pto.tile<5x1xf16>, %y: !pto.tile<5x4xf32>) -> !pto.tile<5x4xf32> {
  %e = "pto.trowexpandexpdif"(%x, %v) : (!pto.tile<5x4xf16>, !pto.tile<5x1xf16>) -> !pto.tile<5x4xf32>
  %z = "pto.texp"(%y) : (!pto.tile<5x4xf32>) -> !pto.tile<5x4xf32>
  %r = "pto.tadd"(%e, %z) : (!pto.tile<5x4xf32>, !pto.tile<5x4xf32>) -> !pto.tile<5x4xf32>
  return %r : !pto.tile<5x4xf32>
}
