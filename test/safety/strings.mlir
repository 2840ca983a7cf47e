// MLIR strings may be empty or hold bytes that are not UTF-8. melior's string accessors panic on
// both, so every string read from input (symbol names, attribute values, identifiers, file names)
// goes through one safe reader. An empty string attribute is what ptoc's own MLIR output holds
// for an op without tile sources (pto.srcs = ""), so that output must read back.
// RUN: ptoc %s --split-input-file --verify-diagnostics -o %t.bin
// RUN: ptoc %S/../linalg/softmax-rows.mlir --emit=mlir -o %t.mlir
// RUN: ptoc %t.mlir --emit=asm | FileCheck %s
// CHECK: TROWEXPANDEXPDIF

// expected-error@+1 {{function name "" cannot name a kernel: a kernel's name is an ELF symbol, which must be non-empty and free of NUL bytes}}
func.func @""(%a: !pto.tile<16x16xf32>) -> !pto.tile<16x16xf32> {
  return %a : !pto.tile<16x16xf32>
}

// -----

// expected-error@+1 {{function name "" cannot name a kernel}}
func.func @""(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %a : tensor<4x8xf32>
}

// -----

// expected-error@+1 {{function name "a\0b" cannot name a kernel}}
func.func @"a\00b"(%a: !pto.tile<16x16xf32>) -> !pto.tile<16x16xf32> {
  return %a : !pto.tile<16x16xf32>
}

// -----

func.func @attrs(%a: !pto.tile<16x16xf32>) -> !pto.tile<16x16xf32> {
  %0 = "pto.texp"(%a) {pto.note = "", pto.other = "\FF\FE"} : (!pto.tile<16x16xf32>) -> !pto.tile<16x16xf32>
  return %0 : !pto.tile<16x16xf32>
}
