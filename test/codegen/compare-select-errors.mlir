// pto-verify's errors for TCMP and TSEL, each at its op, naming the rule and the fault.
// RUN: ptoc %s --split-input-file --verify-diagnostics

func.func @bad_cmode(%a: !pto.tile<16x64xf32>) -> !pto.tile<16x64xi1> {
  // expected-error@+1 {{'pto.tcmp' op result has pto.cmode "lte", which is not a comparison; write pto.cmode = "eq" | "ne" | "lt" | "gt" | "le" | "ge" [cmode, Fault_TileLegality]}}
  %p = "pto.tcmp"(%a, %a) {pto.cmode = "lte"} : (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xi1>
  return %p : !pto.tile<16x64xi1>
}

// -----

func.func @missing_cmode(%a: !pto.tile<16x64xf32>) -> !pto.tile<16x64xi1> {
  // expected-error@+1 {{has no pto.cmode attribute naming its relation}}
  %p = "pto.tcmp"(%a, %a) : (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xi1>
  return %p : !pto.tile<16x64xi1>
}

// -----

func.func @type_mismatch(%a: !pto.tile<16x64xf32>, %b: !pto.tile<16x64xsi32>) -> !pto.tile<16x64xi1> {
  // expected-note@-1 {{%b defined here}}
  // expected-error@+1 {{'pto.tcmp' op right source operand #1 %b has DataType S32, but the left source has FP32}}
  %p = "pto.tcmp"(%a, %b) {pto.cmode = "eq"} : (!pto.tile<16x64xf32>, !pto.tile<16x64xsi32>) -> !pto.tile<16x64xi1>
  return %p : !pto.tile<16x64xi1>
}

// -----

func.func @numeric_result(%a: !pto.tile<16x64xf32>) -> !pto.tile<16x64xui8> {
  // expected-error@+1 {{'pto.tcmp' op result has type 16x64xui8, a numeric tile, where the op needs a predicate tile; use !pto.tile<16x64xi1> [storage, Fault_TileLegality]}}
  %p = "pto.tcmp"(%a, %a) {pto.cmode = "gt"} : (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xui8>
  return %p : !pto.tile<16x64xui8>
}

// -----

func.func @numeric_selector(%m: !pto.tile<16x64xui8>, %a: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {
  // expected-note@-1 {{%m defined here}}
  // expected-error@+1 {{'pto.tsel' op predicate operand #0 %m has type 16x64xui8, a numeric tile, where the op needs a predicate tile}}
  %r = "pto.tsel"(%m, %a, %a) : (!pto.tile<16x64xui8>, !pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  return %r : !pto.tile<16x64xf32>
}

// -----

func.func @geometry(%p: !pto.tile<16x32xi1>, %a: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {
  // expected-note@-1 {{%p defined here}}
  // expected-error@+1 {{'pto.tsel' op predicate operand #0 %p has shape 16x32xi1, but the full-shape true source has 16x64xf32; full-shape sources and the destination need identical physical and valid shapes; use 16x64xi1}}
  %r = "pto.tsel"(%p, %a, %a) : (!pto.tile<16x32xi1>, !pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  return %r : !pto.tile<16x64xf32>
}

// -----

func.func @cmode_elsewhere(%a: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {
  // expected-error@+1 {{has pto.cmode, which only pto.tcmp takes}}
  %r = "pto.tadd"(%a, %a) {pto.cmode = "eq"} : (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  return %r : !pto.tile<16x64xf32>
}
