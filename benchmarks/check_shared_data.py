"""Load every LIBSVM-format file of the shared data folder and check it against SOURCE.md.

    python benchmarks/check_shared_data.py [--data-home PATH]

For each file: rows, features (largest index), nnz (index:value tokens, so a repeated
index counts twice, as in SOURCE.md), label counts (or distinct/min/max/mean for
real-valued labels), query groups when the file has qid: or a .query file; then the
"parsed statistics" of SOURCE.md for that file and MATCH / MISMATCH. The ``*.libsvm``
conversions of non-LIBSVM originals (bank, bodyfat, mpg, shuttle, spambase, vehicle) are
checked on rows and labels against the original's row (their columns are re-encoded).
Exit status 1 if anything mismatches.
"""

import argparse
import os
import re
import sys
import time

import numpy as np

from birank.datasets import load_svmlight
from birank.datasets._svmlight import read_bytes, read_query_file

SKIP_SUFFIXES = (".csv", ".mat", ".tsv.gz", ".data", ".yaml", ".columns", ".query", ".md",
                 ".dat", ".npz", ".npy", "readme.txt")


def parse_stats(cell):
    """Numbers from a SOURCE.md 'parsed statistics' cell."""
    st = {}
    m = re.search(r"rows=(\d+)", cell)
    if m:
        st["rows"] = int(m.group(1))
        miss = re.search(r"rows=\d+ \((\d+) with missing", cell)
        if miss:
            st["missing"] = int(miss.group(1))
    for key, pattern in (("features", r"max feature index=(\d+)"), ("nnz", r"nnz=(\d+)"),
                         ("groups", r"(?:distinct qids|queries)=(\d+)")):
        m = re.search(pattern, cell)
        if m:
            st[key] = int(m.group(1))
    m = re.search(r"(?:labels|target|y): \[([^\]]*)\]", cell)
    if m and "distinct" not in m.group(1):
        counts = {}
        # "1: 2210, 0: 1933", or with a note per label: "1 (+1, accepted): 2210, ..."
        for tok in re.split(r",(?![^()]*\))", m.group(1)):
            k, v = tok.strip().rsplit(":", 1)
            counts[re.sub(r"\s*\(.*\)", "", k).strip()] = int(v)
        st["counts"] = counts
    for key in ("min", "max", "mean"):
        m = re.search(rf"\b{key}=(-?[\d.]+)", cell)
        if m:
            st[key] = float(m.group(1))
    m = re.search(r"\[(\d+) distinct", cell)
    if m:
        st["distinct"] = int(m.group(1))
    return st


def read_source(folder):
    """{file name: stats} from the table of a SOURCE.md, plus the raw text."""
    path = os.path.join(folder, "SOURCE.md")
    if not os.path.exists(path):
        return {}, ""
    text = open(path, encoding="utf-8").read()
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 5 and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = parse_stats(cells[-1])
    return rows, text


def label_key(v):
    return f"{v:g}"


def count_tokens(path):
    n = 0
    for line in read_bytes(path).decode("utf-8", "replace").splitlines():
        n += sum(1 for t in line.split("#", 1)[0].split()[1:] if ":" in t and
                 not t.startswith("qid:"))
    return n


def compare(got, exp, conversion):
    checks, bad = [], []

    def check(name, ok):
        checks.append(name)
        if not ok:
            bad.append(name)

    if "rows" in exp:
        rows = exp["rows"] - exp.get("missing", 0) if conversion else exp["rows"]
        check("rows", got["rows"] == rows)
    if not conversion:
        if "features" in exp:
            check("features", got["features"] == exp["features"])
        if "nnz" in exp:
            check("nnz", got["nnz"] == exp["nnz"])
        if "groups" in exp:
            check("groups", got.get("groups") == exp["groups"])
    if "counts" in exp:
        want = {}
        for k, v in exp["counts"].items():
            key = {"yes": "1", "no": "-1"}.get(k, k)  # bank: yes=+1, no=-1
            try:
                key = label_key(float(key))
            except ValueError:
                pass
            want[key] = v
        check("labels", got["counts"] == want)
    elif "min" in exp and "max" in exp:
        ok = np.isclose(got["min"], exp["min"]) and np.isclose(got["max"], exp["max"])
        if "mean" in exp:
            decimals = len(str(exp["mean"]).split(".")[-1])  # compare to the printed digits
            ok = ok and abs(got["mean"] - exp["mean"]) <= 0.5 * 10.0 ** -decimals + 1e-9
        if "distinct" in exp:
            ok = ok and got["distinct"] == exp["distinct"]
        check("label range", bool(ok))
    return checks, bad


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-home", default=os.path.join(here, "..", "..", "shared", "data"))
    args = ap.parse_args(argv)
    data_home = os.path.abspath(args.data_home)
    if not os.path.isdir(data_home):
        print(f"no such folder: {data_home}", file=sys.stderr)
        return 2
    n_match = n_bad = 0
    for folder in sorted(os.listdir(data_home)):
        fpath = os.path.join(data_home, folder)
        if not os.path.isdir(fpath):
            continue
        table, _ = read_source(fpath)
        for fname in sorted(os.listdir(fpath)):
            path = os.path.join(fpath, fname)
            if fname.endswith(SKIP_SUFFIXES) or not os.path.isfile(path):
                continue  # (sub-folders, e.g. OHSUMED's per-normalization copies)
            t0 = time.perf_counter()
            try:
                X, y = load_svmlight(path, duplicates="sum")
            except ValueError as exc:
                print(f"{folder}/{fname}: NOT LOADED: {exc}")
                n_bad += 1
                continue
            got = {"rows": X.shape[0], "features": X.shape[1], "nnz": count_tokens(path)}
            groups = None
            if b"qid:" in read_bytes(path):
                groups = load_svmlight(path, duplicates="sum", query_id=True)[2]
            elif os.path.exists(path + ".query"):
                groups = read_query_file(path + ".query", n_rows=X.shape[0])
            if groups is not None:
                got["groups"] = len(np.unique(groups))
            vals, cnts = np.unique(y, return_counts=True)
            got["counts"] = {label_key(v): int(c) for v, c in zip(vals, cnts)}
            got.update(min=float(y.min()), max=float(y.max()), mean=float(y.mean()),
                       distinct=len(vals))
            conversion = fname not in table
            if conversion:
                originals = [k for k in table if not k.endswith((".yaml", ".columns", ".query"))]
                exp = table[originals[0]] if len(originals) == 1 else {}
            else:
                exp = dict(table[fname])
                if "groups" in table.get(fname + ".query", {}):  # LightGBM query file row
                    exp["groups"] = table[fname + ".query"]["groups"]
            if len(vals) <= 12:
                lab = "[" + ", ".join(f"{k}:{v}" for k, v in got["counts"].items()) + "]"
            else:
                lab = (f"[{len(vals)} distinct; min={got['min']:g} max={got['max']:g} "
                       f"mean={got['mean']:.4f}]")
            line = (f"{folder}/{fname}: rows={got['rows']} features={got['features']} "
                    f"nnz={got['nnz']} labels={lab}"
                    + (f" groups={got['groups']}" if "groups" in got else "")
                    + f" ({time.perf_counter() - t0:.2f}s)")
            checks, bad = compare(got, exp, conversion)
            if not checks:
                verdict = "NO STATISTICS in SOURCE.md"
                n_bad += 1
            elif bad:
                verdict = f"MISMATCH ({', '.join(bad)}; SOURCE.md: {exp})"
                n_bad += 1
            else:
                verdict = ("MATCH" + (" vs original file" if conversion else "")
                           + f" ({', '.join(checks)})")
                n_match += 1
            print(f"{line}\n    -> {verdict}")
    print(f"\n{n_match} files match SOURCE.md, {n_bad} do not.")
    return 1 if n_bad else 0


if __name__ == "__main__":
    sys.exit(main())
