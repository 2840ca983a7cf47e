#!/usr/bin/env python3
"""Write a generated pto kernel with N ops to stdout (deterministic).

Usage: gen_kernel.py N [ROWSxCOLS]   (default 16x64)

The kernel cycles through reductions, expand ops, binary ops and TEXP on FP32 tiles of the given
shape, each op reading earlier values, so it exercises every import path and gives the passes real
work. With 8x16 tiles, 62 ops use exactly the 64 registers of a core (2 arguments + 62 results).
"""
import sys

def main():
    n = int(sys.argv[1])
    rows, cols = (int(d) for d in (sys.argv[2] if len(sys.argv) > 2 else "16x64").split("x"))
    full = f"!pto.tile<{rows}x{cols}xf32>"
    row = f"!pto.tile<{rows}x1xf32>"
    col = f"!pto.tile<1x{cols}xf32>"
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
