// --verify-diagnostics: line offsets that point outside the input are errors (`@+4294967293` on
// line 11 used to wrap around to line 8 and match the error there).
// RUN: not ptoc %s --verify-diagnostics 2>&1 | FileCheck %s
// CHECK: verify-diagnostics.mlir:11:4: error: invalid line designator '@+4294967293' in expected-error: it points outside the input (lines 1 to 12)
// CHECK: verify-diagnostics.mlir:8:{{[0-9]+}}: error: unexpected error: unknown op 'pto.tbogus'

func.func @k() {
  "pto.tbogus"() : () -> ()
  return
}
// expected-error@+4294967293 {{unknown op}}

