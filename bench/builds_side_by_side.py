#!/usr/bin/env python3
"""Two builds of blast-bloom and facs side by side on workloads made from the bundled data (data/): the same
commands alternate between the builds, round after round; the outputs must be byte-identical; the table gives the
median wall and CPU (user + sys) seconds of each build and their ratios (new / old). Writes CSV into OUT_DIR.

Usage: bench/builds_side_by_side.py OLD_BIN_DIR NEW_BIN_DIR [OUT_DIR] [ROUNDS]
  e.g. a build of main in build-main/bin against this tree's build/bin. Threads: one per run unless said.
"""
import csv, filecmp, os, resource, statistics, subprocess, sys, tempfile, time

if len(sys.argv) < 3:
    sys.exit(__doc__)
old_bin, new_bin = sys.argv[1], sys.argv[2]
out_dir = sys.argv[3] if len(sys.argv) > 3 else 'bench-results'
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 7
data = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data')
tmp = tempfile.mkdtemp()
os.makedirs(out_dir, exist_ok=True)

# Workloads from the bundled files: E. coli (200 kbases) against ten renamed copies of itself; 100,000 reads
# (the 5,000 SRR059298 reads twenty times); 20,000 lambda pairs (the 2,000 pairs ten times).
ecoli = os.path.join(data, 'ecoli_536_200k.fa')
with open(ecoli) as f:
    ecoli_text = f.read()
with open(os.path.join(tmp, 'ecoli10.fa'), 'w') as f:
    for i in range(10):
        f.write(ecoli_text.replace('>', '>copy%d_' % i))
subprocess.run('zcat %s/SRR059298_5k.fastq.gz > %s/one.fq' % (data, tmp), shell=True, check=True)
for name, src, times in (('reads.fq', tmp + '/one.fq', 20), ('mates1.fq', data + '/lambda_reads_1.fq', 10),
                         ('mates2.fq', data + '/lambda_reads_2.fq', 10)):
    with open(src) as f:
        text = f.read()
    with open(os.path.join(tmp, name), 'w') as f:
        f.write(text * times)
refs = [os.path.join(data, 'bee-viruses', x) for x in sorted(os.listdir(os.path.join(data, 'bee-viruses')))]
subprocess.run([os.path.join(new_bin, 'facs'), 'build-filter', '--no-progress', '-q', '-o', tmp + '/refs.bf'] + refs +
               [os.path.join(data, 'lambda_virus.fa'), ecoli], check=True)

db10 = tmp + '/ecoli10.fa'
workloads = [
    ('blast ecoli vs 10 copies', ['blast-bloom', '--no-progress', '-t', '1', ecoli, db10, '-o', 'out.tsv']),
    ('blast same --every-wmer', ['blast-bloom', '--no-progress', '-t', '1', '--every-wmer', ecoli, db10, '-o', 'out.tsv']),
    ('blast same -t 2', ['blast-bloom', '--no-progress', '-t', '2', ecoli, db10, '-o', 'out.tsv']),
    ('facs 100k reads', ['facs', 'classify', '--no-progress', '-t', '1', '-o', 'out.tsv', '--summary', 'summary.tsv',
                         tmp + '/reads.fq', tmp + '/refs.bf']),
    ('facs 20k pairs split', ['facs', 'classify', '--no-progress', '-t', '1', '--summary', 'summary.tsv',
                              '--matched-out', 'm_', '--mate', tmp + '/mates2.fq', tmp + '/mates1.fq', tmp + '/refs.bf']),
]


def run(bin_dir, args, cwd):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([args[0]] + args[1:], cwd=cwd, stderr=subprocess.DEVNULL, check=True,
                   env=dict(os.environ, PATH=bin_dir + os.pathsep + os.environ['PATH']))
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


rows = []
print('%-26s %9s %9s %7s %9s %9s %7s  %s' % ('workload', 'old wall', 'new wall', 'ratio', 'old cpu', 'new cpu', 'ratio',
                                             'outputs'))
for name, args in workloads:
    dirs = {side: tempfile.mkdtemp(dir=tmp) for side in ('old', 'new')}
    bins = {'old': os.path.abspath(old_bin), 'new': os.path.abspath(new_bin)}
    times = {'old': [], 'new': []}
    for r in range(rounds):
        for side in (('old', 'new') if r % 2 == 0 else ('new', 'old')):
            times[side].append(run(bins[side], args, dirs[side]))
    cmp = filecmp.dircmp(dirs['old'], dirs['new'])
    same = not cmp.left_only and not cmp.right_only and not filecmp.cmpfiles(
        dirs['old'], dirs['new'], cmp.common_files, shallow=False)[1]
    med = {s: (statistics.median(t[0] for t in times[s]), statistics.median(t[1] for t in times[s])) for s in times}
    row = [name, med['old'][0], med['new'][0], med['new'][0] / med['old'][0], med['old'][1], med['new'][1],
           med['new'][1] / med['old'][1], 'identical' if same else 'DIFFER']
    rows.append(row)
    print('%-26s %8.3fs %8.3fs %7.3f %8.3fs %8.3fs %7.3f  %s' % tuple(row), flush=True)
with open(os.path.join(out_dir, 'builds_side_by_side.csv'), 'w', newline='') as f:
    w = csv.writer(f)
    w.writerow(['workload', 'old_wall_s', 'new_wall_s', 'wall_ratio', 'old_cpu_s', 'new_cpu_s', 'cpu_ratio', 'outputs'])
    w.writerows(rows)
subprocess.run(['rm', '-rf', tmp])
