// TCMP and TSEL: one bundle each, every word checked by hand against docs/isa.md §2.2, §2.3,
// §2.5 and §1.9. TCMP/FP32 = (1<<27)|(0<<25)|(13<<20)|0x19181; B.DATR CMode LT (2<<29) with pad
// Null (3<<27); B.DIM LB0=64 (64<<20|0x43), LB1=16 (16<<20|1<<12|0x43); B.IOT T#1 (code 0),
// T#2 (code 1), L, SizeCode 1 (the 16x64 predicate's 128 bytes), funct3 100, PEMode 111.
// TSEL/FP32 = (26<<20)|...; its first B.IOT carries the predicate T#3 (code 2) and the true
// source T#1 with no destination and L=0 (two-source form); the second the false source T#2
// (one-source form, funct3 101), L and the destination ->T<6> (4 KiB, the sources' SizeCode).
// RUN: ptoc %s --target-profile=absolute --emit=words | FileCheck %s
// RUN: ptoc verify %s --target-profile=absolute --trials 60 | FileCheck %s --check-prefix=EXEC
// RUN: ptoc %s --target-profile=absolute -o %t.bin && ptoc disasm %t.bin | FileCheck %s --check-prefix=ASM
// RUN: ptoc %s --target-profile=absolute --emit=mlir | ptoc - --target-profile=absolute --emit=words | FileCheck %s

// CHECK:      0x08D19181  BSTART.VEC TCMP, FP32
// CHECK-NEXT: 0x58001023  B.DATR CMode=LT, PadValue=Null
// CHECK-NEXT: 0x04000043  B.DIM LB0=64
// CHECK-NEXT: 0x01001043  B.DIM LB1=16
// CHECK-NEXT: 0x0408CE13  B.IOT T#1, T#2, mask=1111, last, ->T<1>
// CHECK-NEXT: 0x00000001  BSTOP
// CHECK-NEXT: 0x09A19181  BSTART.VEC TSEL, FP32
// CHECK-NEXT: 0x04000043  B.DIM LB0=64
// CHECK-NEXT: 0x01001043  B.DIM LB1=16
// CHECK-NEXT: 0x00204E13  B.IOT T#3, T#1, mask=1111
// CHECK-NEXT: 0x001B5E13  B.IOT T#2, mask=1111, last, ->T<6>
// CHECK-NEXT: 0x00000001  BSTOP

// EXEC: @sel: 60 trials (seed 0), compiled code matches the source bit for bit
// EXEC: @unordered: 60 trials (seed 0), compiled code matches the source bit for bit
// EXEC: @pick: 60 trials (seed 0), compiled code matches the source bit for bit

// ASM: .result r0, T#4, FP32, 16x64, valid=16x64, size=6, pad=Null
// ASM: .result r0, T#2, PRED, 8x16, valid=8x12, size=1, pad=Max

func.func @sel(%a: !pto.tile<16x64xf32>, %b: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {
  %p = "pto.tcmp"(%a, %b) {pto.cmode = "lt"} : (!pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xi1>
  %r = "pto.tsel"(%p, %a, %b) : (!pto.tile<16x64xi1>, !pto.tile<16x64xf32>, !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  return %r : !pto.tile<16x64xf32>
}

// x != x marks the NaNs of a bf16 tile: a predicate result with a padded valid region.
func.func @unordered(%x: !pto.tile<8x16xbf16, valid=8x12>) -> !pto.tile<8x16xi1, valid=8x12, pad=max> {
  %p = "pto.tcmp"(%x, %x) {pto.cmode = "ne"} : (!pto.tile<8x16xbf16, valid=8x12>, !pto.tile<8x16xbf16, valid=8x12>) -> !pto.tile<8x16xi1, valid=8x12, pad=max>
  return %p : !pto.tile<8x16xi1, valid=8x12, pad=max>
}

// A predicate argument (loaded from 0/1 values) selecting between si8 tiles.
func.func @pick(%p: !pto.tile<4x32xi1, valid=3x20>, %a: !pto.tile<4x32xsi8, valid=3x20>, %b: !pto.tile<4x32xsi8, valid=3x20>) -> !pto.tile<4x32xsi8, valid=3x20, pad=min> {
  %r = "pto.tsel"(%p, %a, %b) : (!pto.tile<4x32xi1, valid=3x20>, !pto.tile<4x32xsi8, valid=3x20>, !pto.tile<4x32xsi8, valid=3x20>) -> !pto.tile<4x32xsi8, valid=3x20, pad=min>
  return %r : !pto.tile<4x32xsi8, valid=3x20, pad=min>
}
