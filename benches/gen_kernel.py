#!/usr/bin/env python3
"""Write a generated pto kernel with N ops to stdout (deterministic).

Usage: gen_kernel.py N [--registers]   (--registers keeps it within the 64-register budget)

The kernel cycles through reductions, expand ops, binary ops and TEXP on 16x64 FP32 tiles, each
op reading earlier values, so it exercises every import path and gives the passes real work.
"""
import sys

def main():
    n = int(sys.argv[1])
    full = "!pto.tile<16x64xf32>"
    row = "!pto.tile<16x1xf32>"
    col = "!pto.tile<1x64xf32>"
    out = [f"func.func @generated(%a: {full}, %b: {full}) -> {full} {{"]
    fulls = ["%a", "%b"]
    rows, cols = [], []
    for i in range(n):
        v = f"%v{i}"
        x, y = fulls[-1], fulls[-2 if len(fulls) > 1 else -1]
        k = i % 6
        if k == 0:
            out.append(f'  {v} = "pto.trowmax"({x}) : ({full}) -> {row}')
            rows.append(v)
        elif k == 1 and rows:
            out.append(f'  {v} = "pto.trowexpandsub"({x}, {rows[-1]}) : ({full}, {row}) -> {full}')
            fulls.append(v)
        elif k == 2:
            out.append(f'  {v} = "pto.texp"({x}) : ({full}) -> {full}')
            fulls.append(v)
        elif k == 3:
            out.append(f'  {v} = "pto.tcolsum"({x}) : ({full}) -> {col}')
            cols.append(v)
        elif k == 4 and cols:
            out.append(f'  {v} = "pto.tcolexpandmax"({x}, {cols[-1]}) : ({full}, {col}) -> {full}')
            fulls.append(v)
        else:
            out.append(f'  {v} = "pto.tadd"({x}, {y}) : ({full}, {full}) -> {full}')
            fulls.append(v)
    out.append(f"  return {fulls[-1]} : {full}")
    out.append("}")
    print("\n".join(out))

if __name__ == "__main__":
    main()
