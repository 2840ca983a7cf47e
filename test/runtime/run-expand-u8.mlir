// ptoc run on the TROWEXPANDADD vector of docs/isa.md §6: U8 250 + 10 wraps to 4; padding of a Null-pad
// result is undefined (null), and the broadcast copy and inputs are untouched.
// RUN: ptoc %s --target-profile=absolute -o %t.bin
// RUN: ptoc run %t.bin --arg src=%S/Inputs/u8_2x3_250.npy --arg 1=%S/Inputs/u8_2x1_10.npy --format json | FileCheck %s
// RUN: ptoc run %s --target-profile=absolute --arg src=%S/Inputs/u8_2x3_250.npy --arg b=%S/Inputs/u8_2x1_10.npy --out-dir %t.out | FileCheck %s --check-prefix=TEXT
// RUN: python3 -c "import sys; d=open(sys.argv[1],'rb').read(); assert d[:6]==b'\x93NUMPY' and d[-6:]==bytes([4]*6), d" %t.out/r0.npy

// CHECK: {"kernel":"add","status":"ok","flags":"0x00","results":[{"name":"r0","register":"T#3","dtype":"U8","rows":32,"cols":4,"valid_rows":2,"valid_cols":3,"size_code":1,"elements":["0x04","0x04","0x04",null,"0x04","0x04","0x04",null,null,
// TEXT: kernel add: ok, flags 0x00{{$}}
// TEXT-NEXT: r0 = T#3 U8 32x4 (valid 2x3)
// TEXT-NEXT:   [4, 4, 4]
// TEXT-NEXT:   [4, 4, 4]
func.func @add(%src: !pto.tile<2x4xui8, valid=2x3>, %b: !pto.tile<2x1xui8>) -> !pto.tile<2x4xui8, valid=2x3> {
  %r = "pto.trowexpandadd"(%src, %b) : (!pto.tile<2x4xui8, valid=2x3>, !pto.tile<2x1xui8>) -> !pto.tile<2x4xui8, valid=2x3>
  return %r : !pto.tile<2x4xui8, valid=2x3>
}
