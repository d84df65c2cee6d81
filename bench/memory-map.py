#!/usr/bin/env python3
"""Where a running node's resident memory is, from /proc/PID/smaps: shared libraries (by
library), the main heap, thread stacks, and other anonymous mappings grouped by size.

Frame buffers are anonymous mappings of one frame's size (libav allocates each with its
own mmap above glibc's threshold): a 1920x1080 yuv420p picture is 3.0 MiB (3110400 bytes
plus padding), 1280x720 1.3 MiB. The kernel merges neighbouring anonymous mappings into
one, so frames allocated together (the delay line's) show as one larger mapping, and the
"≥ 60 MiB" group holds such merged runs as well as malloc arenas: for who owns what, use
heaptrack (bench/README.md, "Memory"). Anonymous memory in transparent huge pages is
counted apart (a huge page is resident whole once touched).

Usage: bench/memory-map.py PID [--frame-bytes N]
"""
import argparse
import collections
import re


def mappings(pid):
    """Yields (name, size_kb, rss_kb, anon_huge_kb) for each mapping of the process."""
    header = re.compile(r"^[0-9a-f]+-[0-9a-f]+ ")
    name, size, rss, huge = None, 0, 0, 0
    with open(f"/proc/{pid}/smaps") as smaps:
        for line in smaps:
            if header.match(line):
                if name is not None:
                    yield name, size, rss, huge
                fields = line.split()
                name = fields[5] if len(fields) > 5 else ""
                size, rss, huge = 0, 0, 0
            elif line.startswith("Size:"):
                size = int(line.split()[1])
            elif line.startswith("Rss:"):
                rss = int(line.split()[1])
            elif line.startswith("AnonHugePages:"):
                huge = int(line.split()[1])
    if name is not None:
        yield name, size, rss, huge


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("pid", type=int)
    parser.add_argument("--frame-bytes", type=int, default=1920 * 1080 * 3 // 2)
    arguments = parser.parse_args()
    frame_kb = arguments.frame_bytes / 1024
    totals = collections.Counter()
    libraries = collections.Counter()
    frames = 0
    huge_kb = 0
    for name, size, rss, huge in mappings(arguments.pid):
        huge_kb += huge
        if name.startswith("/"):
            library = name.rsplit("/", 1)[-1]
            library = re.sub(r"\.so[.0-9]*$", "", library)
            libraries[library] += rss
            totals["files (libraries, the binary, the model)"] += rss
        elif name == "[heap]":
            totals["main heap (brk)"] += rss
        elif name.startswith("[stack"):
            totals["main stack"] += rss
        elif name == "" and frame_kb <= size <= frame_kb * 1.02 + 64:
            frames += 1
            totals["anonymous, one frame's size"] += rss
        elif name == "" and size >= 60 * 1024:
            totals["anonymous, ≥ 60 MiB (malloc arenas of threads)"] += rss
        elif name == "":
            totals["anonymous, other"] += rss
        else:
            totals[name] += rss
    whole = sum(totals.values())
    print(f"resident: {whole / 1024:.1f} MiB")
    for category, kb in totals.most_common():
        print(f"  {category}: {kb / 1024:.1f} MiB")
    print(f"  (mappings of one frame's size: {frames}; in transparent huge pages: {huge_kb / 1024:.1f} MiB)")
    print("largest files:")
    for library, kb in libraries.most_common(12):
        print(f"  {library}: {kb / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
