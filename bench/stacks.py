"""Summarise a py-spy raw profile (collapsed stacks, `py-spy record --format raw`).

Prints the share of samples each frame is on the stack for (inclusive) and at the top
of (self), optionally only for stacks that pass through a frame matching `--focus`
(e.g. `--focus sparkls/` for the server's own code, `--focus MainThread` for the
event loop's thread when recorded with `--threads`).

    python bench/stacks.py PROFILE.txt [--focus TEXT] [--top 30]

`bench/vs_floor.py --py-spy DIR` writes one such file per sparkls process it starts.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profile", type=Path)
    parser.add_argument("--focus", help="only stacks with a frame containing this text")
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    inclusive: Counter[str] = Counter()
    top: Counter[str] = Counter()
    total = 0
    for line in args.profile.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        if not count.isdigit() or (args.focus and not any(args.focus in f for f in frames)):
            continue
        total += int(count)
        top[frames[-1]] += int(count)
        for frame in set(frames):
            inclusive[frame] += int(count)
    print(f"{total} samples{f' through {args.focus!r}' if args.focus else ''}")
    for title, counter in (("on the stack", inclusive), ("at the top", top)):
        print(f"\n{title}:")
        for frame, count in counter.most_common(args.top):
            print(f"  {count * 100 / max(total, 1):5.1f}%  {frame}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
