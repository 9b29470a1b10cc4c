#!/usr/bin/env python3
"""Synthetic databases for bench/blast_small_query.sh (written to a scratch directory, never committed).

  random OUT.fa MBASES SEED            uniform random bases, records of 1 Mbase
  repeats OUT.fa MBASES SEED GENOME... copies of the genomes' 100-kbase pieces, each with substitutions at a rate
                                       drawn from 0.5-20% and a few 1-kbase N runs, so that a real query meets
                                       near-identical, diverged and unrelated copies (repeat-rich, like a
                                       collection of related strains); records of ~1 Mbase
"""
import os
import random
import sys

WRAP = 80


def write_record(f, name, seq):
    f.write(b">" + name.encode() + b"\n")
    for i in range(0, len(seq), WRAP):
        f.write(seq[i:i + WRAP] + b"\n")


def random_bases(n):
    table = bytes(b"ACGT"[i & 3] for i in range(256))
    return os.urandom(n).translate(table)


def read_fasta(path):
    seq = []
    with open(path, "rb") as f:
        for line in f:
            if not line.startswith(b">"):
                seq.append(line.strip().upper())
    return b"".join(seq)


def mutate(piece, rate, rng):
    s = bytearray(piece)
    n = len(s)
    for _ in range(int(n * rate)):
        i = rng.randrange(n)
        s[i] = b"ACGT"[(b"ACGT".find(s[i]) + rng.randrange(1, 4)) & 3] if s[i] in b"ACGT" else s[i]
    if rng.random() < 0.3:  # an N run, as assemblies have
        i = rng.randrange(max(1, n - 1000))
        s[i:i + 1000] = b"N" * len(s[i:i + 1000])
    return bytes(s)


def main():
    kind, out, mbases, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    rng = random.Random(seed)
    total = mbases * 1000000
    with open(out, "wb") as f:
        if kind == "random":
            for r in range(mbases):
                write_record(f, "random_%d" % r, random_bases(1000000))
            return
        genomes = [read_fasta(p) for p in sys.argv[5:]]
        pieces = [g[i:i + 100000] for g in genomes for i in range(0, len(g) - 50000, 100000)]
        done, r = 0, 0
        while done < total:
            rec = []
            while sum(map(len, rec)) < 1000000:
                rate = rng.choice([0.005, 0.02, 0.05, 0.1, 0.2])
                p = rng.choice(pieces)
                if rng.random() < 0.5:
                    p = p[::-1].translate(bytes.maketrans(b"ACGT", b"TGCA"))
                rec.append(mutate(p, rate, rng))
            seq = b"".join(rec)
            write_record(f, "repeats_%d" % r, seq)
            done += len(seq)
            r += 1


if __name__ == "__main__":
    main()
