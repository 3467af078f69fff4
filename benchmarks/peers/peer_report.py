"""What every Python peer run reports the same way: the machine and the commit it ran at, and the
Markdown it prints and, with --out, writes (benchmarks/results/)."""

from __future__ import annotations

import pathlib
import subprocess
from typing import List, Optional

REPO = pathlib.Path(__file__).resolve().parents[2]


def cpu_name() -> str:
    """The CPU's model name (/proc/cpuinfo), or 'unknown CPU'."""
    try:
        with open("/proc/cpuinfo") as f:
            return next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        return "unknown CPU"


def commit() -> str:
    """The repository's HEAD, short, or 'unknown'."""
    run = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return run.stdout.strip() or "unknown"


def emit(lines: List[str], out: Optional[str]) -> None:
    """Prints the report and writes it to `out` when given."""
    text = "\n".join(lines) + "\n"
    print(text)
    if out:
        pathlib.Path(out).write_text(text)
