#!/usr/bin/env python3
"""bench/perf_callees.py DATA FUNCTION [DEPTH] — from a `perf record --call-graph`
file, the share of samples under FUNCTION (outermost frame) and how it splits
among its callees DEPTH levels down (inclusive % of all samples)."""
import collections
import subprocess
import sys

data, target = sys.argv[1], sys.argv[2]
depth = int(sys.argv[3]) if len(sys.argv) > 3 else 1
out = subprocess.run(['perf', 'script', '-i', data, '-F', 'ip,sym'],
                     capture_output=True, text=True).stdout
stacks, cur = [], []
for line in out.split('\n'):
    if not line.strip():
        if cur:
            stacks.append(cur)
            cur = []
        continue
    parts = line.strip().split(None, 1)
    cur.append((parts[1] if len(parts) > 1 else parts[0]).split('+0x')[0])
if cur:
    stacks.append(cur)
total = len(stacks) or 1
hits = 0
split = collections.Counter()
for s in stacks:                        # s[0] is the leaf, s[-1] the root
    if target not in s:
        continue
    hits += 1
    i = len(s) - 1 - s[::-1].index(target)
    path = tuple(s[max(i - depth, 0):i][::-1])
    split[path or ('<self>',)] += 1
print(f"{target}: {100 * hits / total:.1f}% of {total} samples; by callee (% of all samples):")
for k, v in split.most_common(20):
    if 100 * v / total >= 0.5:
        print(f"  {100 * v / total:5.1f}%  {' > '.join(k)}")
