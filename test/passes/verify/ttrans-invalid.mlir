// pto.ttrans: one located error per case (docs/isa.md §19). The result's valid shape must be the
// source's swapped (`TileOperandsLegal_TTRANS`), its type the source's, neither tile in a CUBE
// layout (`TileGenericIndexingPermitted`), no pad (TTRANS leaves its padding Null), one numeric
// source, and no numeric control.
// RUN: ptoc %s --split-input-file --pass-pipeline=pto-verify --verify-diagnostics

func.func @not_swapped(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {
  // expected-error@+1 {{'pto.ttrans' op result has shape 16x64xf32, but the transpose of the source 16x64xf32 has valid shape 64x16; use 64x16xf32 [transposed-shape, Fault_TileLegality]}}
  %r = "pto.ttrans"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  return %r : !pto.tile<16x64xf32>
}

// -----

func.func @partial(%x: !pto.tile<2x4xui16, valid=2x3>) -> !pto.tile<3x4xui16, valid=3x3> {
  // expected-error@+1 {{'pto.ttrans' op result has shape 3x4xui16, valid=3x3, but the transpose of the source 2x4xui16, valid=2x3 has valid shape 3x2; use 3x2xui16 [transposed-shape, Fault_TileLegality]}}
  %r = "pto.ttrans"(%x) : (!pto.tile<2x4xui16, valid=2x3>) -> !pto.tile<3x4xui16, valid=3x3>
  return %r : !pto.tile<3x4xui16, valid=3x3>
}

// -----

func.func @type_mismatch(%x: !pto.tile<16x64xf32>) -> !pto.tile<64x16xf16> {
  // expected-error@+1 {{'pto.ttrans' op result has DataType FP16, but the source has FP32; make the result FP32 [same-type, Fault_TileLegality]}}
  %r = "pto.ttrans"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<64x16xf16>
  return %r : !pto.tile<64x16xf16>
}

// -----

// expected-note@+1 {{%x defined here}}
func.func @cube_source(%x: !pto.tile<16x64xf16, layout=cube_m16>) -> !pto.tile<64x16xf16> {
  // expected-error@+1 {{'pto.ttrans' op source operand #0 %x is a cube_m16 tile; TTRANS reads row-major tiles only; store the matrix result to memory and load it without a layout [layout, Fault_TileLegality]}}
  %r = "pto.ttrans"(%x) : (!pto.tile<16x64xf16, layout=cube_m16>) -> !pto.tile<64x16xf16>
  return %r : !pto.tile<64x16xf16>
}

// -----

func.func @cube_result(%x: !pto.tile<64x16xf16>) -> !pto.tile<16x64xf16, layout=cube_m16> {
  // expected-error@+1 {{'pto.ttrans' op result is a cube_m16 tile; TTRANS writes row-major tiles only; drop the layout from the result type; only the matrix ops and pto.tload make CUBE tiles [layout, Fault_TileLegality]}}
  %r = "pto.ttrans"(%x) : (!pto.tile<64x16xf16>) -> !pto.tile<16x64xf16, layout=cube_m16>
  return %r : !pto.tile<16x64xf16, layout=cube_m16>
}

// -----

func.func @pad(%x: !pto.tile<16x64xf32>) -> !pto.tile<64x16xf32, pad=zero> {
  // expected-error@+1 {{'pto.ttrans' op result has shape 64x16xf32, pad=zero, but TTRANS leaves its padding undefined (a pad would need a B.DATR PadValue, which TTRANS refuses); use 64x16xf32 [transposed-shape, Fault_TileLegality]}}
  %r = "pto.ttrans"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<64x16xf32, pad=zero>
  return %r : !pto.tile<64x16xf32, pad=zero>
}

// -----

func.func @two_sources(%x: !pto.tile<16x64xf32>) -> !pto.tile<64x16xf32> {
  // expected-error@+1 {{'pto.ttrans' takes 1 operand (source), got 2}}
  %r = "pto.ttrans"(%x, %x) : (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<64x16xf32>
  return %r : !pto.tile<64x16xf32>
}

// -----

func.func @rmode(%x: !pto.tile<16x64xf32>) -> !pto.tile<64x16xf32> {
  // expected-error@+1 {{'pto.ttrans' op has pto.rmode, but TTRANS copies bits (its B.DATR RMode and Sat must be 0); only pto.tcvt takes pto.rmode and pto.sat [numeric-control, Fault_TileLegality]}}
  %r = "pto.ttrans"(%x) {pto.rmode = "rtz"} : (!pto.tile<16x64xf32>) -> !pto.tile<64x16xf32>
  return %r : !pto.tile<64x16xf32>
}
