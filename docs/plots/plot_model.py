#!/usr/bin/env python3
"""Turn the CSV files of bloomseq-model, bloomseq-calibrate and bench/model_validation into PNG plots.

Needs matplotlib (Debian: apt-get install python3-matplotlib).

usage: plot_model.py KIND OUT.png CSV [CSV ...]
  tradeoff    bloomseq-model tradeoff       FPR vs predicted time over n_sub (Ma et al. 2011 Fig. 18)
  blocks      bloomseq-model blocks         predicted throughput vs B_r per T_r (Figs. 9-14)
  units       bloomseq-calibrate work_units.csv  measured vs f_sched model over work units
  pchase      bloomseq-calibrate pchase.csv / random_read.csv   latency vs size
  fit         model_validation validation_grid.csv   measured vs predicted time (Fig. 17)
  fpr         model_validation validation_fpr.csv    histogram of FPR relative error (Fig. 6)
  blastfit    model_validation_blast validation_blast_grid.csv   measured vs fitted time, CPU layouts
  blastprofile  model_validation_blast validation_blast_grid.csv  measured vs predicted from the profile alone
Several CSVs of the same kind are drawn on one figure (e.g. one tradeoff per device).
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    """Rows as dicts keyed by the '# a,b,c' header; the other '#' lines are returned as the title."""
    header, title, rows = None, [], []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            if line.startswith("#"):
                text = line[1:].strip()
                if "," in text and "=" not in text:
                    header = text.split(",")
                else:
                    title.append(text)
                continue
            vals = line.split(",")
            if header is None:
                header = ["c%d" % i for i in range(len(vals))]
            rows.append(dict(zip(header, vals)))
    return rows, " ".join(title)


def num(r, k):
    try:
        return float(r[k])
    except (KeyError, ValueError):
        return float("nan")


def tradeoff(ax, paths):
    for p in paths:
        rows, title = read(p)
        x = [num(r, "fpr") for r in rows]
        y = [num(r, "stage1a_s") for r in rows]
        ax.plot(x, y, marker="o", ms=3, label=title or p)
        for r in rows[:: max(1, len(rows) // 6)]:
            ax.annotate("n=%d" % int(num(r, "n_sub")), (num(r, "fpr"), num(r, "stage1a_s")), fontsize=7)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("false positive rate (eq. 2)")
    ax.set_ylabel("predicted stage-1a time (s)")
    ax.set_title("FPR-time trade-off over the sub-query size")


def blocks(ax, paths):
    for p in paths:
        rows, title = read(p)
        by_t = {}
        for r in rows:
            by_t.setdefault(r["T_r"], []).append(r)
        for t, rs in by_t.items():
            x = [num(r, "B_r") for r in rs]
            y = [num(r, "predicted_wmers_per_s") for r in rs]
            ba = rs[0].get("B_a", "?")
            ax.plot(x, y, marker=".", ms=3, label="%s T_r=%s (B_a=%s)" % (title.split()[0] if title else p, t, ba))
    ax.set_xlabel("requested blocks B_r")
    ax.set_ylabel("predicted throughput (db w-mers/s)")
    ax.set_title("Throughput vs B_r (eqs. 1, 12, 19)")


def units(ax, paths):
    for p in paths:
        rows, _ = read(p)
        keys = list(rows[0].keys())
        x = [num(r, keys[0]) for r in rows]
        ax.plot(x, [num(r, keys[1]) for r in rows], "o-", label="measured")
        ax.plot(x, [num(r, keys[2]) for r in rows], "x--", label="a1 f_sched + a0")
    ax.set_xlabel("work units over the cores")
    ax.set_ylabel("time (s)")
    ax.set_title("CPU work units: the f_sched zigzag")


def pchase(ax, paths):
    for p in paths:
        rows, _ = read(p)
        keys = list(rows[0].keys())
        x = [num(r, keys[0]) for r in rows]
        ax.plot(x, [num(r, keys[1]) for r in rows], "o-", ms=3, label="%s measured" % p.split("/")[-1])
        ax.plot(x, [num(r, keys[2]) for r in rows], "--", label="%s model" % p.split("/")[-1])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("working set (bytes)")
    ax.set_ylabel("ns per access")
    ax.set_title("Memory hierarchy sweeps")


def fit(ax, paths):
    series = (("predicted_fit_s", "measured_cpu_s", "critical-path CPU time (minimum)"),
              ("predicted_normalised_s", "normalised_s", "load-normalised time"))
    lo, hi = float("inf"), 0.0
    for p in paths:
        rows, _ = read(p)
        for pk, mk, lab in series:
            if pk not in rows[0]:
                continue
            x = [num(r, pk) for r in rows]
            y = [num(r, mk) for r in rows]
            n = len(y)
            my = sum(y) / n
            ss_res = sum((a - b) ** 2 for a, b in zip(y, x))
            ss_tot = sum((a - my) ** 2 for a in y)
            ax.scatter(x, y, s=10, label="%s: %d configurations, R^2 = %.4f" % (lab, n, 1 - ss_res / ss_tot))
            lo, hi = min([lo] + x + y), max([hi] + x + y)
    ax.plot([lo, hi], [lo, hi], "k--", lw=0.8)
    ax.set_xlabel("modeled time a1 f_app f_cache f_sched + a0 (s)")
    ax.set_ylabel("measured time (s)")
    ax.set_title("Modeled vs measured stage-1a time (CPU, paper-vector kernel)")


def fpr(ax, paths):
    for p in paths:
        rows, _ = read(p)
        tag = "w = 16" if "w16" in p else "w = 11"
        cols = [("rel_err_ne", "eq. 2, n_e = n_sub - w + 1"), ("rel_err_distinct", "eq. 2, n_e = distinct w-mers")]
        if rows and "rel_err_finite" in rows[0] and "w16" not in p:
            cols.append(("rel_err_finite", "finite-universe extension, distinct"))
        for col, lab in cols:
            # The last sub-query can be too short for any false positive to be seen (error -100%): left out.
            v = [100 * num(r, col) for r in rows if num(r, col) > -0.999]
            ax.hist(v, bins=30, alpha=0.5, label="%s, %s" % (tag, lab))
    ax.axvline(-10, color="k", ls=":")
    ax.axvline(10, color="k", ls=":")
    ax.set_xlabel("relative error of the empirical FPR vs the model (%)")
    ax.set_ylabel("sub-queries")
    ax.set_title("FPR per sub-query on real DNA")


def blast_scatter(ax, paths, column, xlabel, title):
    """Measured stage-1a time against the prediction in `column`, one series per layout, R^2 in the legend."""
    for p in paths:
        rows, _ = read(p)
        for layout in ("vector", "bitsliced"):
            sel = [r for r in rows if r.get("layout") == layout]
            if not sel:
                continue
            x = [num(r, column) * 1e3 for r in sel]
            y = [num(r, "measured_s") * 1e3 for r in sel]
            mean = sum(y) / len(y)
            r2 = 1 - sum((a - b) ** 2 for a, b in zip(y, x)) / sum((a - mean) ** 2 for a in y)
            ax.scatter(x, y, s=12, label="%s: %d configurations, R^2 = %.4f" % (layout, len(sel), r2))
    lo, hi = ax.get_xlim()
    ax.plot([0, hi], [0, hi], "k--", lw=0.8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("measured stage-1a time (ms, fastest of the passes)")
    ax.set_title(title)


def blastfit(ax, paths):
    blast_scatter(ax, paths, "predicted_fit_s", "predicted stage-1a time, constants fitted (ms)",
                  "blast-bloom's own stage 1a: model vs measured (1 thread)")


def blastprofile(ax, paths):
    """Profile-only prediction (kernel-probe coefficients, nothing fitted on the grid) against the measurement."""
    blast_scatter(ax, paths, "predicted_calibration_s",
                  "predicted stage-1a time from the calibration profile alone (ms)",
                  "blast-bloom's own stage 1a: profile-only prediction (1 thread)")


KINDS = {"tradeoff": tradeoff, "blocks": blocks, "units": units, "pchase": pchase, "fit": fit, "fpr": fpr,
         "blastfit": blastfit, "blastprofile": blastprofile}


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in KINDS:
        sys.stderr.write(__doc__)
        return 64
    fig, ax = plt.subplots(figsize=(7, 4.5))
    KINDS[sys.argv[1]](ax, sys.argv[3:])
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=90)
    return 0


if __name__ == "__main__":
    sys.exit(main())
