// The worked example of docs/isa.md §2.10: TROWEXPANDMAX FP32 8x16 with sources T#1, T#2 and a
// SizeCode 3 destination, as canonical assembly, as words, and as an object readelf can list.
// RUN: ptoc %s --target-profile=absolute --emit=asm | FileCheck %s
// RUN: ptoc %s --target-profile=absolute --emit=words | FileCheck %s --check-prefix=WORDS
// RUN: ptoc %s --target-profile=absolute -o %t.bin
// RUN: llvm-readelf -S -s %t.bin | FileCheck %s --check-prefix=ELF
// RUN: ptoc disasm %t.bin | FileCheck %s

// CHECK:      .kernel k
// CHECK-NEXT: .pe_mask 1111
// CHECK-NEXT: .spec pto-isa-0.58.3-mode-function-v1
// CHECK-NEXT: .profile absolute
// CHECK-NEXT: .arg x, T#1, FP32, 8x16, valid=8x16, size=3, pad=Null
// CHECK-NEXT: .arg m, T#2, FP32, 32x1, valid=8x1, size=1, pad=Null
// CHECK-NEXT: .result r0, T#3, FP32, 8x16, valid=8x16, size=3, pad=Null
// CHECK:      BSTART.SFU TROWEXPANDMAX, FP32
// CHECK-NEXT: B.DIM LB0=16
// CHECK-NEXT: B.DIM LB1=8
// CHECK-NEXT: B.IOT T#1, T#2, mask=1111, last, ->T<3>
// CHECK-NEXT: BSTOP

// WORDS:      ; kernel k
// WORDS-NEXT: 0x0C919181  BSTART.SFU TROWEXPANDMAX, FP32
// WORDS-NEXT: 0x01000043  B.DIM LB0=16
// WORDS-NEXT: 0x00801043  B.DIM LB1=8
// WORDS-NEXT: 0x0409CE13  B.IOT T#1, T#2, mask=1111, last, ->T<3>
// WORDS-NEXT: 0x00000001  BSTOP

// ELF: .text     PROGBITS
// ELF: .pto.meta PROGBITS
// ELF: 0000000000000000    20 FUNC    GLOBAL DEFAULT     1 k

func.func @k(%x: !pto.tile<8x16xf32>, %m: !pto.tile<8x1xf32>) -> !pto.tile<8x16xf32> {
  %0 = "pto.trowexpandmax"(%x, %m) : (!pto.tile<8x16xf32>, !pto.tile<8x1xf32>) -> !pto.tile<8x16xf32>
  return %0 : !pto.tile<8x16xf32>
}
