// pto.tcvt and its numeric control: one located error per case. Every rounding mode is legal for
// every pair of the 16 types (the spec restricts none), so only a misspelled mode is an error;
// RMode and Sat on an op that does not read them, a shape the conversion does not keep, and a
// destination type outside the 16 (E8M0, which the spec's TCVT also knows) are the others.
// RUN: ptoc %s --split-input-file --pass-pipeline=pto-verify --verify-diagnostics

func.func @rmode_on_tadd(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {
  // expected-error@+1 {{'pto.tadd' op has pto.rmode and pto.sat, but TADD rounds RNE and never saturates (its B.DATR RMode and Sat must be 0); only pto.tcvt takes pto.rmode and pto.sat [numeric-control, Fault_TileLegality]}}
  %r = "pto.tadd"(%x, %x) {pto.rmode = "rtz", pto.sat = true} : (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  return %r : !pto.tile<16x64xf32>
}

// -----

func.func @unknown_mode(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x64xsi32> {
  // expected-error@+1 {{'pto.tcvt' attribute 'pto.rmode' is "nearest"; it must be one of "rne", "rtz", "rdn", "rup", "rna", "rto", "rhb"}}
  %r = "pto.tcvt"(%x) {pto.rmode = "nearest"} : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xsi32>
  return %r : !pto.tile<16x64xsi32>
}

// -----

func.func @sat_not_bool(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x64xsi32> {
  // expected-error@+1 {{'pto.tcvt' attribute 'pto.sat' is 1 : i64; it must be true or false}}
  %r = "pto.tcvt"(%x) {pto.sat = 1 : i64} : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xsi32>
  return %r : !pto.tile<16x64xsi32>
}

// -----

func.func @shape(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x32xf16> {
  // expected-error@+1 {{'pto.tcvt' op result has shape 16x32xf16, but the full-shape source has 16x64xf32; full-shape sources and the destination need identical physical and valid shapes; use 16x64xf16 [full-shape, Fault_TileLegality]}}
  %r = "pto.tcvt"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<16x32xf16>
  return %r : !pto.tile<16x32xf16>
}

// -----

func.func @e8m0(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf8E8M0FNU> {
  // expected-error@+1 {{malformed tile type '!pto.tile<16x64xf8E8M0FNU>' of the result of 'pto.tcvt': unknown element type 'f8E8M0FNU'; expected one of f64, f32, tf32, hf32, f16, bf16, f8E4M3FN, f8E5M2, si8..si64, ui8..ui64, i8..i64}}
  %r = "pto.tcvt"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xf8E8M0FNU>
  return %r : !pto.tile<16x64xf8E8M0FNU>
}
