#!/usr/bin/env python3
"""Scores per-read calls of facs, kraken2 and bbduk against the truth in the read names.

Truth: the read name up to the first '.' (ecoli, suis, lambda, bee, kleb). The correct call for ecoli, suis and
lambda reads is that reference; for bee reads any of the four bee viruses (they are close relatives, so a tie
among them is correct too); kleb reads come from a genome absent from the references, so their correct call is
no call, and any call is counted as 'called as a reference'.

Usage: facs_eval.py TOOL FILE [ARGS]  (TOOL = facs [THRESHOLD] | kraken2 | bbduk NAME=LABEL...); prints one TSV row per truth label:
label, reads, correct, wrong (another reference), ambiguous (tie between different answers), unclassified.
"""
import collections
import sys

BEE = {"dwv", "vdv1", "vdv1dwv5", "vdv1dwv9"}
# kraken2 taxids of the hand-made taxonomy in bench/facs.sh
KRAKEN = {"100": "ecoli", "101": "suis", "102": "lambda", "103": "bee", "1031": "bee", "1032": "bee",
          "1033": "bee", "1034": "bee"}


def label_of(name):
    return "bee" if name in BEE else name


def facs_calls(path, threshold=None):
    """With `threshold`, calls are recomputed from the per-filter scores (--scores) for that threshold."""
    names = None
    for line in open(path):
        if line.startswith("#read_id"):
            names = [h[len("score:"):] for h in line.rstrip("\n").split("\t")[4:]]
            continue
        if line.startswith("#"):
            continue
        f = line.rstrip("\n").split("\t")
        call = f[1]
        if threshold is not None and call != "unscored":
            scores = [float(x) for x in f[4:]]
            best = max(scores)
            if best < threshold or best == 0:
                call = "novel"
            else:
                top = [n for n, s in zip(names, scores) if s == best]
                call = top[0] if len(top) == 1 else "tie"
                f[3] = ",".join(n for n, s in zip(names, scores) if s >= threshold)
        if call in ("novel", "unscored"):
            yield f[0], None
        elif call == "tie":
            scores = [float(x) for x in f[4:]]
            matched = set(f[3].split(","))
            best = max(s for n, s in zip(names, scores) if n in matched)
            labels = {label_of(n) for n, s in zip(names, scores) if n in matched and s == best}
            yield f[0], labels.pop() if len(labels) == 1 else "ambiguous"
        else:
            yield f[0], label_of(call)


def kraken_calls(path):
    for line in open(path):
        f = line.split("\t")
        yield f[1], (None if f[0] == "U" else KRAKEN.get(f[2], "ambiguous"))


def bbduk_calls(path, refmap):
    # bbduk rename=t: "@read<TAB>ref1=count<TAB>ref2=count"; the reference with the most k-mers is the call.
    with open(path) as fh:
        for i, line in enumerate(fh):
            if i % 4:
                continue
            parts = line[1:].rstrip("\n").split("\t")
            best, bestc, tie = None, -1, False
            for p in parts[1:]:
                ref, _, c = p.rpartition("=")
                c = int(c)
                lab = refmap.get(ref.split()[0], "ambiguous")
                if c > bestc:
                    best, bestc, tie = lab, c, False
                elif c == bestc and lab != best:
                    tie = True
            yield parts[0], ("ambiguous" if tie else best)


CLASSES = ("ecoli", "suis", "lambda", "bee", "kleb")


def class_totals(fastq):
    totals = collections.Counter()
    with open(fastq) as fh:
        for i, line in enumerate(fh):
            if i % 4 == 0:
                totals[line[1:].split(".")[0]] += 1
    return totals


def main():
    if sys.argv[1] == "csv":
        # csv LABEL READS.fq TOOL FILE [ARGS]: one CSV row; percentages of the true class sizes (tools that only
        # list matched reads, like bbduk, leave the rest unclassified).
        label, reads = sys.argv[2], sys.argv[3]
        del sys.argv[1:4]
        totals = class_totals(reads)
        rows = {}
        import io
        import contextlib
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            main()
        for line in buf.getvalue().splitlines():
            f = line.split("\t")
            rows[f[0]] = [int(x) for x in f[1:]]
        out = [label]
        for c in CLASSES[:4]:
            out.append("%.3f" % (100.0 * rows.get(c, [0])[0] / totals[c]))
        kleb = rows.get("kleb", [0, 0, 0, 0])
        out.append("%.3f" % (100.0 * (kleb[1] + kleb[2]) / totals["kleb"]))
        out += [str(totals[c]) for c in CLASSES]
        print(",".join(out))
        return
    tool, path = sys.argv[1], sys.argv[2]
    if tool == "facs":
        calls = facs_calls(path, float(sys.argv[3]) if len(sys.argv) > 3 else None)
    elif tool == "kraken2":
        calls = kraken_calls(path)
    else:
        refmap = dict(x.split("=", 1) for x in sys.argv[3:])  # first header word = label
        refmap = {k: label_of(v) for k, v in refmap.items()}
        calls = bbduk_calls(path, refmap)
    c = collections.defaultdict(collections.Counter)
    for name, call in calls:
        truth = name.split(".")[0]
        if call is None:
            c[truth]["unclassified"] += 1
        elif call == "ambiguous":
            c[truth]["ambiguous"] += 1
        elif call == truth:
            c[truth]["correct"] += 1
        else:
            c[truth]["wrong"] += 1
    for truth in sorted(c):
        k = c[truth]
        print("\t".join([truth] + [str(k[x]) for x in ("correct", "wrong", "ambiguous", "unclassified")]))


if __name__ == "__main__":
    main()
