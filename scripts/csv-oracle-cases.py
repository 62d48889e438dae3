#!/usr/bin/env python3
"""Writes Tests/CardfileStoreTests/Fixtures/csv-oracle.json: random CSV texts and what
Python's csv module in strict mode reads from each (its rows, or how many rows it read
before the error). The tests check Cardfile's reader and its RFC 4180 model against these
cases; Python is needed only to regenerate the file, never to run the tests.

    python3 scripts/csv-oracle-cases.py [SEED] > Tests/CardfileStoreTests/Fixtures/csv-oracle.json
"""
import csv
import io
import json
import random
import sys

# Pieces the texts are made of. A bare CR is left out: Python ends a line there, while
# Cardfile (like sqlite3 .import) ends lines only at LF or CRLF.
PIECES = ['a', 'b', 'zoë', '漢字', ' ', ',', '"', '""', '\n', '\r\n', 'x"y', '"q"', ',"', '",']


def case(rng):
    text = ''.join(rng.choice(PIECES) for _ in range(rng.randrange(0, 24)))
    rows = []
    try:
        for row in csv.reader(io.StringIO(text, newline=''), strict=True):
            rows.append(row)
        return {'input': text, 'rows': rows}
    except csv.Error:
        return {'input': text, 'rowsBeforeError': len(rows)}


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 4180
    rng = random.Random(seed)
    cases = [case(rng) for _ in range(600)]
    json.dump({'python': sys.version.split()[0], 'seed': seed, 'cases': cases}, sys.stdout, ensure_ascii=False, indent=0)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
