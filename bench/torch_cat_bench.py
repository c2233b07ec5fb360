#!/usr/bin/env python3
"""torch.cat on the shapes of cat_cuda_bench, same metric (2 x output bytes /
time, CUDA events, median of 9 rounds of 10), for the comparison in
docs/benchmarks.md. Run by bench/run_cuda_bench.sh on a GPU machine."""
import torch

MiB = 1 << 20
print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}")
print(f"{'config':40} {'torch.cat GB/s':>14} {'out= GB/s':>10}")
for total in (16 * MiB, 256 * MiB, 1024 * MiB):
    for axis, chunk, n in ((0, 0, 2), (2, 4, 2), (2, 64, 2), (2, 4096, 8), (1, 256, 8), (2, 64, 64)):
        per = total // n
        shape = ((per // 4, 1, 1) if axis == 0 else
                 (per // chunk, chunk // 64, 16) if axis == 1 else (per // chunk, 1, chunk // 4))
        xs = [torch.ones(shape, dtype=torch.float32, device="cuda") for _ in range(n)]
        out = torch.cat(xs, dim=axis)

        def timed(fn):
            times = []
            for _ in range(9):
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                for _ in range(10):
                    fn()
                b.record()
                b.synchronize()
                times.append(a.elapsed_time(b) / 10)
            return sorted(times)[4]

        alloc = timed(lambda: torch.cat(xs, dim=axis))
        into = timed(lambda: torch.cat(xs, dim=axis, out=out))
        name = f"{['first', 'middle', 'last'][axis]}/chunk:{chunk}B/inputs:{n}/{total // MiB}MiB"
        gbs = lambda ms: 2 * total / (ms * 1e-3) / 1e9
        print(f"{name:40} {gbs(alloc):14.0f} {gbs(into):10.0f}")
