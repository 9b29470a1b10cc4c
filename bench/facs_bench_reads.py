"""Simulated reads of the facs benchmarks (fixed seeds, so that the scripts that share WORKDIR see the same reads).

As a program, in the folder of bench/facs_refs_scale.sh's refs/: python3 facs_bench_reads.py N OUT writes N 100-bp
reads to OUT, half drawn from the first 8 references with 1% substitutions (either strand), half random.
"""
import random
import sys


def mutate(s, rnd):
    """s with each base substituted with probability 1%, drawing from rnd."""
    s = list(s)
    for i in range(len(s)):
        if rnd.random() < 0.01: s[i] = rnd.choice('ACGT'.replace(s[i], ''))
    return ''.join(s)


def write_refs_reads(n, out):
    rnd = random.Random(21)
    acgt = bytes.maketrans(bytes(range(256)), b'ACGT' * 64)
    first = [''.join(l.strip() for l in open(f'refs/g{g:04d}.fa') if not l.startswith('>')) for g in range(8)]
    comp = str.maketrans('ACGT', 'TGCA')
    q = 'I' * 100
    with open(out, 'w') as f:
        for r in range(n):
            if r % 2 == 0:
                g = rnd.randrange(len(first)); p = rnd.randrange(len(first[g]) - 100)
                s = mutate(first[g][p:p + 100], rnd)
                if rnd.random() < 0.5: s = s.translate(comp)[::-1]
                name = f'r{r}_g{g:04d}'
            else:
                s = rnd.randbytes(100).translate(acgt).decode(); name = f'r{r}_random'
            f.write(f'@{name}\n{s}\n+\n{q}\n')


if __name__ == '__main__':
    write_refs_reads(int(sys.argv[1]), sys.argv[2])
