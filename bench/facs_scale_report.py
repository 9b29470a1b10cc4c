#!/usr/bin/env python3
"""Table and summary CSV of bench/facs_scale.sh from its raw CSVs (so a run can be summarised again without rerunning).

Usage: facs_scale_report.py DIR READS
  reads DIR/facs_scale_runs.csv (every timed run) and DIR/facs_scale_builds.csv (every build); writes
  DIR/facs_scale.csv (one row per R, tool and read set) and prints the table.
Wall times are medians over the rounds; the ratios to kraken2 are medians of the per-round ratios (the tools
alternate run by run, so a busy machine slows both alike within a round); time_vs_R<min> divides a tool's median
wall time at R by its own at the smallest R of the run.
"""
import collections
import csv
import os
import statistics as st
import sys


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    runs = list(csv.DictReader(open(os.path.join(out, "facs_scale_runs.csv"))))
    builds = {(int(b["refs"]), b["tool"]): b for b in csv.DictReader(open(os.path.join(out, "facs_scale_builds.csv")))}
    groups = collections.defaultdict(list)
    for x in runs:
        groups[(int(x["refs"]), x["tool"], x["reads"])].append(x)
    walls = {k: st.median(float(x["wall_s"]) for x in v) for k, v in groups.items()}
    per_round = collections.defaultdict(dict)
    for x in runs:
        per_round[(int(x["refs"]), x["reads"], x["round"])][x["tool"]] = x
    wall_ratio, cpu_ratio = collections.defaultdict(list), collections.defaultdict(list)
    for (r, s, _), d in per_round.items():
        for t, x in d.items():
            if t != "kraken2" and "kraken2" in d:
                wall_ratio[(r, t, s)].append(float(d["kraken2"]["wall_s"]) / float(x["wall_s"]))
                cpu_ratio[(r, t, s)].append(float(d["kraken2"]["cpu_s"]) / float(x["cpu_s"]))
    r0 = min(r for r, _, _ in groups)
    cols = ["refs", "tool", "reads_set", "runs", "build_s", "build_cpu_s", "build_peak_mb", "db_bytes",
            "db_vs_hash_k2d", "classify_s", "cpu_s", "proc_s", "peak_mb", "reads_per_s", "accuracy_pct", "novel_pct",
            "load1", "vs_kraken2_reads_per_s", "vs_kraken2_cpu", f"time_vs_R{r0}"]
    rows = []
    order = lambda kv: (kv[0][2] != "reads", kv[0][0], kv[0][1] == "kraken2", kv[0][1])
    for (r, t, s), v in sorted(groups.items(), key=order):
        b, k2 = builds[(r, t)], builds.get((r, "kraken2"))
        med = lambda key: st.median(float(x[key]) for x in v if x[key] != "")
        acc = sum(int(x["correct"]) for x in v) / max(1, sum(int(x["ref_reads"]) for x in v))
        nov = sum(int(x["novel"]) for x in v) / max(1, sum(int(x["random_reads"]) for x in v))
        base = walls.get((r0, t, s))
        rows.append({
            "refs": r, "tool": t, "reads_set": s, "runs": len(v), "build_s": b["build_s"],
            "build_cpu_s": b["build_cpu_s"], "build_peak_mb": f"{int(b['build_peak_kb']) / 1024:.0f}",
            "db_bytes": b["db_bytes"],
            "db_vs_hash_k2d": f"{int(b['db_bytes']) / int(k2['db_bytes']):.2f}" if k2 else "",
            "classify_s": f"{walls[(r, t, s)]:.2f}", "cpu_s": f"{med('cpu_s'):.2f}",
            "proc_s": f"{med('proc_s'):.2f}" if any(x["proc_s"] for x in v) else "",
            "peak_mb": f"{max(int(x['peak_kb']) for x in v) / 1024:.0f}",
            "reads_per_s": f"{n / walls[(r, t, s)]:.0f}", "accuracy_pct": f"{100 * acc:.3f}",
            "novel_pct": f"{100 * nov:.3f}", "load1": f"{med('load1'):.2f}",
            "vs_kraken2_reads_per_s": f"{st.median(wall_ratio[(r, t, s)]):.2f}" if wall_ratio[(r, t, s)] else "",
            "vs_kraken2_cpu": f"{st.median(cpu_ratio[(r, t, s)]):.2f}" if cpu_ratio[(r, t, s)] else "",
            f"time_vs_R{r0}": f"{walls[(r, t, s)] / base:.2f}" if base else ""})
    with open(os.path.join(out, "facs_scale.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, cols)
        w.writeheader()
        w.writerows(rows)
    head = ["R", "tool", "reads", "runs", "build s", "build CPU s", "build MB", "filter/db MB", "/k2d", "classify s",
            "CPU s", "proc s", "peak MB", "reads/s", "accuracy %", "novel %", "load", "x kraken2", "x kraken2 CPU",
            f"t/t(R{r0})"]
    table = [head] + [[f"{int(x[c]) / 1048576:.1f}" if c == "db_bytes" else str(x[c]) for c in cols] for x in rows]
    width = [max(len(row[i]) for row in table) for i in range(len(head))]
    for row in table:
        print("  ".join(c.rjust(width[i]) for i, c in enumerate(row)))
    print(f"{n} reads per set (half from the references, half random). classify s: median wall of the alternating "
          f"runs, loading included; proc s: the tool's own processing time; x kraken2: median per-round ratio of "
          f"kraken2's wall (CPU) time to facs's; accuracy: reference reads called to their reference; novel: random "
          f"reads called to none.")


if __name__ == "__main__":
    main()
