#!/usr/bin/env python3
"""The plot of wr-bench-memory's CSV: memory against the number of envs, log-log.

One colour per strategy: a line with dots through the reported bytes (the library's accounting
plus the strategy's own buffers) and hollow squares on the measured ones (RSS on the CPU,
cudaMemGetInfo on a GPU), as the benchmark's tables name them.

    usage: plot_memory.py CSV [PNG]     (PNG: the CSV's name with .png)

Run it with the repository's .venv/bin/python (scripts/setup.sh installs matplotlib there);
scripts/run-benchmarks.sh and the bench-memory target do.
"""
import csv
import sys
from pathlib import Path

# The strategies in the benchmark's order (benchmarks/memory/strategy.h), with their legend.
TITLES = {
    "shared": "a. shared sensor (this library)",
    "ray-buffers": "b. per-camera ray buffers (IsaacLab RayCasterCamera)",
    "render-targets": "c. per-camera render targets (IsaacGym cameras)",
}
COLOURS = {"shared": "#1f5ac8", "ray-buffers": "#d23228", "render-targets": "#1e963c"}
MIB = 1024.0 * 1024.0


def main(argv):
    if len(argv) not in (2, 3):
        print("usage: plot_memory.py CSV [PNG]", file=sys.stderr)
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")  # files only, no display
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter
    except ImportError as e:
        print(f"plot_memory.py: matplotlib is missing ({e}); run scripts/setup.sh, which installs it "
              f"into .venv/, and run this script with .venv/bin/python", file=sys.stderr)
        return 3
    csv_path = Path(argv[1])
    png_path = Path(argv[2]) if len(argv) == 3 else csv_path.with_suffix(".png")
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        print(f"plot_memory.py: {csv_path} has no rows", file=sys.stderr)
        return 1
    first = rows[0]
    on_gpu = first["device"] == "cuda"

    fig, ax = plt.subplots(figsize=(9.6, 6.4), dpi=100)
    for name, title in TITLES.items():
        points = sorted((int(r["num_envs"]), float(r["reported_bytes"]), float(r["measured_bytes"]))
                        for r in rows if r["strategy"] == name)
        if not points:
            continue
        envs = [p[0] for p in points]
        ax.plot(envs, [p[1] / MIB for p in points], "-o", color=COLOURS[name], markersize=4, label=title)
        ax.plot(envs, [max(p[2], 1.0) / MIB for p in points], "s", color=COLOURS[name], markersize=10,
                markerfacecolor="none")
    envs = sorted({int(r["num_envs"]) for r in rows})
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(envs)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.grid(True, which="major", color="#dcdcdc")
    ax.grid(True, which="minor", axis="y", color="#ececec")
    ax.set_xlabel("envs N (log scale)")
    ax.set_ylabel("MiB (log scale)")
    ax.set_title(f"Memory vs envs: {first['width']}x{first['height']} depth, {int(first['triangles']):,} triangles "
                 f"({'GPU' if on_gpu else 'CPU'})")
    # What the two marks are, as two legend entries of their own under the strategies.
    ax.plot([], [], "-o", color="grey", markersize=4, label="line: reported (library + own buffers)")
    ax.plot([], [], "s", color="grey", markersize=10, markerfacecolor="none",
            label=f"squares: measured ({'cudaMemGetInfo' if on_gpu else 'RSS'})")
    ax.legend(loc="upper left", fontsize=9, frameon=False)
    fig.tight_layout()
    fig.savefig(png_path)
    print(f"wrote {png_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
