#!/usr/bin/env python3
"""Data for bench/facs_scale.sh: many references and 100-bp reads, all from fixed seeds (Python's own generator).

  facs_scale_data.py refs  DIR COUNT --seed S [--size-bp N | --sizes mix --real-dir D]
      writes DIR/refNNNN.fa for references 1..COUNT and DIR/manifest.tsv (name, taxid, bases, source).
      Reference i depends only on (seed, i), so a smaller set is the first references of a larger one.
      --sizes mix: the real genomes found in --real-dir come first, then synthetic ones of 0.5-5 Mbases.
  facs_scale_data.py reads DIR COUNT OUT.fq --reads N --seed S
      N reads of 100 bases: the even-numbered ones from references 1..COUNT (reference drawn uniformly, then a
      position inside one of its records, 1% substitutions, each to another base), the odd-numbered ones random.
      The truth is the read name up to the '.': refNNNN or random.
  facs_scale_data.py kraken DIR COUNT LIB.fa TAXDIR
      the same references as one kraken2 library (>refNNNN_j|kraken:taxid|T) and a taxonomy with one species per
      reference under the root (nodes.dmp, names.dmp).
"""
import argparse
import math
import os
import random
import sys

READ_LEN = 100
ERROR_RATE = 0.01
ACGT = bytes(b"ACGT"[i & 3] for i in range(256))  # byte -> base: uniform because 256 is a multiple of 4
OTHER = {b: [c for c in b"ACGT" if c != b] for b in b"ACGTN"}
# Debian example genomes fetched by scripts/fetch-data.sh (distinct genera, so their reads do not tie)
REAL = ["ecoli_536.fa", "klebsiella_hs11286.fa", "ssuis_sc84.fa", "lambda_virus.fa"]
TAXID_BASE = 1000


def ref_name(i):
    return f"ref{i:04d}"


def random_bases(rnd, n):
    return rnd.randbytes(n).translate(ACGT)


def write_fasta(path, records):
    tmp = path + ".tmp"
    with open(tmp, "wb") as out:
        for name, seq in records:
            out.write(b">" + name.encode() + b"\n")
            for p in range(0, len(seq), 80):
                out.write(seq[p:p + 80] + b"\n")
    os.replace(tmp, path)


def read_fasta(path):
    """[(name, sequence)] with upper-case bases."""
    records, name, parts = [], None, []
    with open(path, "rb") as f:
        for line in f:
            if line.startswith(b">"):
                if name is not None:
                    records.append((name, b"".join(parts).upper()))
                name, parts = line[1:].split()[0].decode(), []
            else:
                parts.append(line.strip())
    if name is not None:
        records.append((name, b"".join(parts).upper()))
    if not records:
        sys.exit(f"facs_scale_data.py: {path}: no FASTA record")
    return records


def make_refs(args):
    os.makedirs(args.dir, exist_ok=True)
    real = []
    if args.sizes == "mix":
        real = [os.path.join(args.real_dir, f) for f in REAL if os.path.exists(os.path.join(args.real_dir, f))]
        if not real:
            sys.exit(f"facs_scale_data.py: no real genome in {args.real_dir} (run scripts/fetch-data.sh)")
    rows = []
    for i in range(1, args.count + 1):
        path = os.path.join(args.dir, ref_name(i) + ".fa")
        if i <= len(real):
            source = os.path.basename(real[i - 1])
            records = [(f"{ref_name(i)}_{j + 1} {n}", s) for j, (n, s) in enumerate(read_fasta(real[i - 1]))]
        else:
            rnd = random.Random(f"{args.seed}-ref-{i}")
            size = args.size_bp if args.sizes == "uniform" else rnd.randrange(500_000, 5_000_001)
            source = "synthetic"
            records = [(ref_name(i), random_bases(rnd, size))]
        if not os.path.exists(path):
            write_fasta(path, records)
        rows.append(f"{ref_name(i)}\t{TAXID_BASE + i}\t{sum(len(s) for _, s in records)}\t{source}\n")
    with open(os.path.join(args.dir, "manifest.tsv"), "w") as m:
        m.write("#name\ttaxid\tbases\tsource\n")
        m.writelines(rows)


def mutate(read, rnd):
    """1% substitutions: gaps between errors are geometric, so the cost is per error, not per base."""
    read = bytearray(read)
    log_q = math.log(1.0 - ERROR_RATE)
    p = int(math.log(1.0 - rnd.random()) / log_q)
    while p < len(read):
        read[p] = rnd.choice(OTHER.get(read[p], b"ACGT"))
        p += 1 + int(math.log(1.0 - rnd.random()) / log_q)
    return bytes(read)


def make_reads(args):
    rnd = random.Random(f"{args.seed}-reads-{args.count}")
    # First where every reference read comes from, then one reference at a time in memory.
    wanted = {}  # reference -> [read numbers]
    for r in range(0, args.reads, 2):
        wanted.setdefault(rnd.randrange(1, args.count + 1), []).append(r)
    seqs = [None] * args.reads
    for i in sorted(wanted):
        records = [s for _, s in read_fasta(os.path.join(args.dir, ref_name(i) + ".fa")) if len(s) >= READ_LEN]
        weights = [len(s) - READ_LEN + 1 for s in records]
        for r in wanted[i]:
            s = rnd.choices(records, weights)[0] if len(records) > 1 else records[0]
            p = rnd.randrange(len(s) - READ_LEN + 1)
            seqs[r] = (ref_name(i), mutate(s[p:p + READ_LEN], rnd))
    for r in range(1, args.reads, 2):
        seqs[r] = ("random", random_bases(rnd, READ_LEN))
    qual = b"I" * READ_LEN
    tmp = args.out + ".tmp"
    with open(tmp, "wb") as out:
        for r, (truth, s) in enumerate(seqs):
            out.write(b"@%s.%d\n%s\n+\n%s\n" % (truth.encode(), r + 1, s, qual))
    os.replace(tmp, args.out)


def make_kraken(args):
    os.makedirs(args.taxdir, exist_ok=True)
    with open(os.path.join(args.taxdir, "nodes.dmp"), "w") as nodes, \
            open(os.path.join(args.taxdir, "names.dmp"), "w") as names:
        nodes.write("1\t|\t1\t|\tno rank\t|\n")
        names.write("1\t|\troot\t|\t\t|\tscientific name\t|\n")
        for i in range(1, args.count + 1):
            nodes.write(f"{TAXID_BASE + i}\t|\t1\t|\tspecies\t|\n")
            names.write(f"{TAXID_BASE + i}\t|\t{ref_name(i)}\t|\t\t|\tscientific name\t|\n")
    with open(args.lib + ".tmp", "wb") as out:
        for i in range(1, args.count + 1):
            with open(os.path.join(args.dir, ref_name(i) + ".fa"), "rb") as f:
                j = 0
                for line in f:
                    if line.startswith(b">"):
                        j += 1
                        line = b">%s_%d|kraken:taxid|%d\n" % (ref_name(i).encode(), j, TAXID_BASE + i)
                    out.write(line)
    os.replace(args.lib + ".tmp", args.lib)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("refs")
    r.add_argument("dir")
    r.add_argument("count", type=int)
    r.add_argument("--seed", default="1")
    r.add_argument("--size-bp", type=int, default=500_000)
    r.add_argument("--sizes", choices=["uniform", "mix"], default="uniform")
    r.add_argument("--real-dir", default=os.path.expanduser("~/.cache/bloomseq/data"))
    q = sub.add_parser("reads")
    q.add_argument("dir")
    q.add_argument("count", type=int)
    q.add_argument("out")
    q.add_argument("--reads", type=int, default=200_000)
    q.add_argument("--seed", default="1")
    k = sub.add_parser("kraken")
    k.add_argument("dir")
    k.add_argument("count", type=int)
    k.add_argument("lib")
    k.add_argument("taxdir")
    args = ap.parse_args()
    {"refs": make_refs, "reads": make_reads, "kraken": make_kraken}[args.what](args)


if __name__ == "__main__":
    main()
