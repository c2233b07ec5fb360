"""Helpers shared by the benchmark scripts in bench/."""
import os
import platform
import statistics
import subprocess
import sys
import time


def measure(cmd):
    """(seconds, peak KiB) of one run of cmd; exits with its output if it fails."""
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"benchmark command failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    return elapsed, int(proc.stderr.strip().splitlines()[-1])


def machine():
    """One line describing this machine, for reports."""
    return f"{platform.machine()}, {os.cpu_count()} cores, {platform.platform()}"


def interleaved(commands, rounds):
    """Runs {name: [cmd, ...]} round by round (a b c a b c ...).

    Returns ({name: [seconds summed over its commands, one per round]},
    {name: peak KiB of any of its runs})."""
    times = {name: [] for name in commands}
    peaks = {name: 0 for name in commands}
    for _ in range(rounds):
        for name, cmds in commands.items():
            total = 0.0
            for cmd in cmds:
                seconds, peak = measure(cmd)
                total += seconds
                peaks[name] = max(peaks[name], peak)
            times[name].append(total)
    return times, peaks


def print_table(what, times, peaks, base, base_label, digits=3):
    """A Markdown table of median (min..max) seconds, the ratio of medians to
    times[base], and peak memory (also as a ratio to base's)."""
    base_median = statistics.median(times[base])
    print(f"| {what} | median s | min..max s | time vs {base_label} | peak MiB | memory vs {base_label} |")
    print("|---|---|---|---|---|---|")
    for name, samples in times.items():
        median = statistics.median(samples)
        print(f"| {name} | {median:.{digits}f} | {min(samples):.{digits}f}..{max(samples):.{digits}f} | "
              f"{median / base_median:.2f}x | {peaks[name] / 1024:.0f} | {peaks[name] / peaks[base]:.2f}x |")
