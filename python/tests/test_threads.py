"""Calls from many threads: each gets its own result, and the GIL is released meanwhile."""

import threading
import time

import numpy as np

import ptoc
from conftest import unary_source


def test_eight_threads_compile_and_run_distinct_kernels():
    sources = [unary_source("tneg", "f32", rows=2, cols=1 << (i % 6 + 1)) for i in range(8)]
    alone = [ptoc.compile(s, emit="asm") for s in sources]
    results = [None] * 8

    def work(i):
        x = np.arange(2 << (i % 6 + 1), dtype=np.float32).reshape(2, -1)
        outs = []
        for _ in range(5):
            outs.append((ptoc.compile(sources[i], emit="asm"), ptoc.run(sources[i], {"x": x})["r0"]))
        results[i] = (x, outs)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, (x, outs) in enumerate(results):
        for asm, r in outs:
            assert asm == alone[i]
            assert r.tolist() == (-x).tolist()


def test_the_gil_is_released_while_a_call_runs(softmax_source):
    # While one thread is inside a long verify, another keeps running Python code. With the GIL
    # held the other thread could run at most until the call began, never in its middle.
    window = {}

    def long_call():
        window["start"] = time.perf_counter()
        ptoc.verify(softmax_source, trials=400)
        window["end"] = time.perf_counter()

    ticks = []
    t = threading.Thread(target=long_call)
    t.start()
    while t.is_alive():
        ticks.append(time.perf_counter())
    t.join()
    start, end = window["start"], window["end"]
    assert end - start > 0.05, "the call is too short to tell"
    middle = [x for x in ticks if start + (end - start) / 4 < x < end - (end - start) / 4]
    assert len(middle) > 100
