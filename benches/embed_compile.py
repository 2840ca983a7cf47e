"""Compile latency and thread throughput of the Python package (benches/embedding.sh).

Usage: python embed_compile.py KERNEL.mlir [RUNS=100]: the median of RUNS ptoc.compile calls
on KERNEL, then 8 distinct kernels compiled 25 times each by one thread and by 8 threads."""

import statistics
import sys
import threading
import time

import ptoc


def distinct(i: int) -> str:
    cols, t = 8 << (i % 4), ("f32" if i < 4 else "f16")
    x, v = f"!pto.tile<16x{cols}x{t}>", f"!pto.tile<16x1x{t}>"
    return (
        f"func.func @k{i}(%x: {x}) -> {x} {{\n"
        f'  %m = "pto.trowmax"(%x) : ({x}) -> {v}\n'
        f'  %e = "pto.trowexpandexpdif"(%x, %m) : ({x}, {v}) -> {x}\n'
        f'  %s = "pto.trowsum"(%e) : ({x}) -> {v}\n'
        f'  %r = "pto.trowexpanddiv"(%e, %s) : ({x}, {v}) -> {x}\n'
        f"  return %r : {x}\n}}\n"
    )


def main() -> None:
    src = open(sys.argv[1]).read()
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    ptoc.compile(src)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        ptoc.compile(src)
        times.append(time.perf_counter() - start)
    print(f"python_latency_ms {statistics.median(times) * 1e3:.3f}")
    kernels = [distinct(i) for i in range(8)]
    per = 25

    def work(i):
        for _ in range(per):
            ptoc.compile(kernels[i])

    start = time.perf_counter()
    for i in range(8):
        work(i)
    one = time.perf_counter() - start
    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    eight = time.perf_counter() - start
    print(f"python_kernels_per_s_1_thread {8 * per / one:.1f}")
    print(f"python_kernels_per_s_8_threads {8 * per / eight:.1f}")


if __name__ == "__main__":
    main()
