#!/usr/bin/env python3
"""Self-test of the cross-check scripts (stdlib + pokerkit, ~10 s).

1. gen_hands.py --hands N into a temp folder; replay_check.py on it must
   report every hand agreed.
2. The "settle" hands rewritten with finishing_stacks = _pitboss_finishing_stacks
   (what Pitboss's referee should write) must count as expected differences.
3. One hand with one chip moved between two players must be a disagreement
   (exit status 1).
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run(*args):
    p = subprocess.run([sys.executable, *args], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--hands', type=int, default=300)
    ap.add_argument('--seed', type=int, default=7)
    a = ap.parse_args()
    ok = True
    with tempfile.TemporaryDirectory() as d:
        rc, out = run(os.path.join(HERE, 'gen_hands.py'), '--hands',
                      str(a.hands), '--seed', str(a.seed), '--out', d)
        print(out)
        files = sorted(os.path.join(d, f) for f in os.listdir(d)
                       if f.endswith('.phhs'))
        rc, out = run(os.path.join(HERE, 'replay_check.py'), *files)
        print('[1] generated hands:\n' + out)
        ok &= rc == 0 and 'disagreements: 0' in out

        # [2] Pitboss-style stacks on the "settle" hands.
        pit = os.path.join(d, 'pitboss-style.phhs')
        n_settle = 0
        with open(pit, 'w') as w:
            for f in files:
                for block in open(f).read().split('\n\n'):
                    if "_pitboss_expect = 'settle'" not in block:
                        continue
                    m = re.search(r'^_pitboss_finishing_stacks = (.*)$',
                                  block, re.M)
                    block = re.sub(r'^finishing_stacks = .*$',
                                   'finishing_stacks = ' + m.group(1),
                                   block, flags=re.M)
                    tag = os.path.basename(f).split('.')[0]
                    block = re.sub(r'^\[(\d+)\]', rf'[{tag}_\1]', block)
                    w.write(block + '\n\n')
                    n_settle += 1
        rc, out = run(os.path.join(HERE, 'replay_check.py'), pit)
        print(f'[2] {n_settle} settle hands with docs/RULES.md stacks:\n' + out)
        ok &= rc == 0 and f'expected differences: {n_settle}' in out

        # [3] one chip moved.
        bad = os.path.join(d, 'tampered.phhs')
        block = open(files[0]).read().split('\n\n')[0]
        m = re.search(r'^finishing_stacks = \[(.*)\]$', block, re.M)
        xs = [int(x) for x in m.group(1).split(',')]
        xs[0] += 1
        xs[1] -= 1
        block = block.replace(m.group(0), f'finishing_stacks = {xs}')
        open(bad, 'w').write(block + '\n')
        rc, out = run(os.path.join(HERE, 'replay_check.py'), bad)
        print('[3] tampered hand:\n' + out)
        ok &= rc == 1 and 'disagreements: 1' in out
    print('SELFTEST', 'OK' if ok else 'FAILED')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
