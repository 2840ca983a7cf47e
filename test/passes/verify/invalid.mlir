// pto-verify: one case per legality rule, each error naming the rule, the operand and the fault
// class the hardware would raise. (Operand counts and dimensions outside 1..65535 are already
// rejected by the importer and the tile-type parser; their rules are unit-tested in verify.rs.)
// RUN: ptoc %s --split-input-file --pass-pipeline=pto-verify --verify-diagnostics

// expected-note@+1 {{%x defined here}}
func.func @data_type(%x: !pto.tile<16x64xsi32>) -> !pto.tile<16x64xsi32> {
  // expected-error@+1 {{'pto.texp' op source operand #0 %x has DataType S32, which TEXP does not accept; legal: FP64, FP32, TF32, HF32, FP16, BF16, E4M3, E5M2 [data-type, Fault_TileLegality]}}
  %r = "pto.texp"(%x) : (!pto.tile<16x64xsi32>) -> !pto.tile<16x64xsi32>
  return %r : !pto.tile<16x64xsi32>
}

// -----

// expected-note@+1 {{%x defined here}}
func.func @arg_source_type(%x: !pto.tile<16x64xf64>) -> !pto.tile<16x1xui32> {
  // expected-error@+1 {{'pto.trowargmax' op source operand #0 %x has DataType FP64, which TROWARGMAX does not accept; legal: S32, U32, FP32, S16, U16, FP16, BF16, S8, U8 [data-type, Fault_TileLegality]}}
  %r = "pto.trowargmax"(%x) : (!pto.tile<16x64xf64>) -> !pto.tile<16x1xui32>
  return %r : !pto.tile<16x1xui32>
}

// -----

// expected-note@+1 {{%y defined here}}
func.func @same_type(%x: !pto.tile<16x64xf32>, %y: !pto.tile<16x64xf16>) -> !pto.tile<16x64xf32> {
  // expected-error@+1 {{'pto.tadd' op right source operand #1 %y has DataType FP16, but the left source has FP32; all sources of TADD share one DataType [same-type, Fault_TileLegality]}}
  %r = "pto.tadd"(%x, %y) : (!pto.tile<16x64xf32>, !pto.tile<16x64xf16>) -> !pto.tile<16x64xf32>
  return %r : !pto.tile<16x64xf32>
}

// -----

func.func @same_type_result(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x1xf16> {
  // expected-error@+1 {{'pto.trowsum' op result has DataType FP16, but the source has FP32; make the result FP32 [same-type, Fault_TileLegality]}}
  %r = "pto.trowsum"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<16x1xf16>
  return %r : !pto.tile<16x1xf16>
}

// -----

func.func @expdif_pair(%x: !pto.tile<16x64xf16>, %m: !pto.tile<16x1xf16>) -> !pto.tile<16x64xbf16> {
  // expected-error@+1 {{'pto.trowexpandexpdif' op result has DataType BF16 for a FP16 source, not one of the EXPDIF pairs; with a FP16 source the result may be FP16 or FP32 [expdif-pair, Fault_TileLegality]}}
  %r = "pto.trowexpandexpdif"(%x, %m) : (!pto.tile<16x64xf16>, !pto.tile<16x1xf16>) -> !pto.tile<16x64xbf16>
  return %r : !pto.tile<16x64xbf16>
}

// -----

func.func @arg_result_type(%x: !pto.tile<16x64xf32>) -> !pto.tile<1x64xf32> {
  // expected-error@+1 {{'pto.tcolargmin' op result has DataType FP32, but TCOLARGMIN produces indices; type the result ui32 (the encoded op writes U32 indices) [arg-result-type, Fault_TileLegality]}}
  %r = "pto.tcolargmin"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<1x64xf32>
  return %r : !pto.tile<1x64xf32>
}

// -----

// expected-error@+1 {{argument #0 %x has physical shape 16x48xf32 with 48 columns, not a power of two, so no rows can be derived; use 16x64xf32, valid=16x48 [cols-power-of-two, Fault_TileAllocation]}}
func.func @cols_power_of_two(%x: !pto.tile<16x48xf32>) -> !pto.tile<16x48xf32> {
  return %x : !pto.tile<16x48xf32>
}

// -----

func.func @valid_within_physical(%x: !pto.tile<16x64xf32>) -> !pto.tile<8x1xf32, valid=16x1> {
  // expected-error@+1 {{'pto.trowsum' op result has valid shape 16x1 outside its physical shape 8x1; use 16x1xf32 [valid-within-physical, Fault_TileAllocation]}}
  %r = "pto.trowsum"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<8x1xf32, valid=16x1>
  return %r : !pto.tile<8x1xf32, valid=16x1>
}

// -----

// expected-error@+1 {{argument #0 %x has physical shape 1024x64xf32 of 256 KiB, which no SizeCode holds (the largest tile is 64 KiB per PE); use at most 256x64xf32 per tile [size-code, Fault_TileAllocation]}}
func.func @size_code(%x: !pto.tile<1024x64xf32>) -> !pto.tile<1024x64xf32> {
  return %x : !pto.tile<1024x64xf32>
}

// -----

func.func @full_shape(%x: !pto.tile<16x64xf32>, %m: !pto.tile<16x1xf32>) -> !pto.tile<16x64xf32, valid=16x60> {
  // expected-error@+1 {{'pto.trowexpandadd' op result has shape 16x64xf32, valid=16x60, but the full-shape source has 16x64xf32; full-shape sources and the destination need identical physical and valid shapes; use 16x64xf32 [full-shape, Fault_TileLegality]}}
  %r = "pto.trowexpandadd"(%x, %m) : (!pto.tile<16x64xf32>, !pto.tile<16x1xf32>) -> !pto.tile<16x64xf32, valid=16x60>
  return %r : !pto.tile<16x64xf32, valid=16x60>
}

// -----

// expected-note@+1 {{%y defined here}}
func.func @full_shape_binary(%x: !pto.tile<16x64xf32>, %y: !pto.tile<32x64xf32, valid=16x64>) -> !pto.tile<16x64xf32> {
  // expected-error@+1 {{'pto.tmax' op right source operand #1 %y has shape 32x64xf32, valid=16x64, but the full-shape left source has 16x64xf32; full-shape sources and the destination need identical physical and valid shapes; use 16x64xf32 [full-shape, Fault_TileLegality]}}
  %r = "pto.tmax"(%x, %y) : (!pto.tile<16x64xf32>, !pto.tile<32x64xf32, valid=16x64>) -> !pto.tile<16x64xf32>
  return %r : !pto.tile<16x64xf32>
}

// -----

func.func @row_broadcast(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {
  // expected-note@+1 {{%n defined here}}
  %n = "pto.tcolmax"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<1x64xf32>
  // expected-error@+1 {{'pto.trowexpandmax' op broadcast operand #1 %n has shape 1x64xf32, but for the full shape 16x64xf32 a row broadcast has valid shape 16x1 and 1 physical column; use 16x1xf32 [row-broadcast, Fault_TileLegality]}}
  %r = "pto.trowexpandmax"(%x, %n) : (!pto.tile<16x64xf32>, !pto.tile<1x64xf32>) -> !pto.tile<16x64xf32>
  return %r : !pto.tile<16x64xf32>
}

// -----

// expected-note@+1 {{%v defined here}}
func.func @col_broadcast(%x: !pto.tile<16x64xf32>, %v: !pto.tile<1x32xf32>) -> !pto.tile<16x64xf32> {
  // expected-error@+1 {{'pto.tcolexpandsub' op broadcast operand #1 %v has shape 1x32xf32, but for the full shape 16x64xf32 a column broadcast has valid shape 1x64 and 64 physical columns; use 1x64xf32 [col-broadcast, Fault_TileLegality]}}
  %r = "pto.tcolexpandsub"(%x, %v) : (!pto.tile<16x64xf32>, !pto.tile<1x32xf32>) -> !pto.tile<16x64xf32>
  return %r : !pto.tile<16x64xf32>
}

// -----

// expected-note@+1 {{%v defined here}}
func.func @col_broadcast_copy(%v: !pto.tile<2x64xf32>) -> !pto.tile<16x64xf32> {
  // expected-error@+1 {{'pto.tcolexpand' op broadcast operand #0 %v has shape 2x64xf32, but for the full shape 16x64xf32 a column broadcast has valid shape 1x64}}
  %r = "pto.tcolexpand"(%v) : (!pto.tile<2x64xf32>) -> !pto.tile<16x64xf32>
  return %r : !pto.tile<16x64xf32>
}

// -----

func.func @reduction_result(%x: !pto.tile<16x64xf32, valid=10x64>) -> !pto.tile<16x1xf32> {
  // expected-error@+1 {{'pto.trowsum' op result has shape 16x1xf32, but for the source 16x64xf32, valid=10x64 a row reduction gives one value per valid source row in 1 physical column; use 10x1xf32 [reduction-result, Fault_TileLegality]}}
  %r = "pto.trowsum"(%x) : (!pto.tile<16x64xf32, valid=10x64>) -> !pto.tile<16x1xf32>
  return %r : !pto.tile<16x1xf32>
}

// -----

func.func @col_reduction_result(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x1xf32> {
  // expected-error@+1 {{'pto.tcolprod' op result has shape 16x1xf32, but for the source 16x64xf32 a column reduction gives one value per valid source column over the source's physical columns; use 1x64xf32 [reduction-result, Fault_TileLegality]}}
  %r = "pto.tcolprod"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<16x1xf32>
  return %r : !pto.tile<16x1xf32>
}
