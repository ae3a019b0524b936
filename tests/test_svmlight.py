"""load_svmlight / dump_svmlight: formats, compression, qid, .query files, error lines."""

import bz2
import gzip
import lzma

import numpy as np
import pytest
import scipy.sparse as sp

from birank.datasets import dump_svmlight, load_svmlight, load_tfranking_toy
from birank.datasets._svmlight import _slow_parse, load_svmlight_bytes, read_query_file

TOY = b"""# a comment line
1 1:0.5 3:-2 # trailing comment
-1 2:1e-3

+1 1:1 2:2 3:3
"""


def write(tmp_path, name, content, compress=None):
    data = content if isinstance(content, bytes) else content.encode()
    if compress == "gz":
        data = gzip.compress(data)
    elif compress == "bz2":
        data = bz2.compress(data)
    elif compress == "xz":
        data = lzma.compress(data)
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize("compress", [None, "gz", "bz2", "xz"])
def test_toy_file_all_compressions(tmp_path, compress):
    path = write(tmp_path, "toy.txt", TOY, compress)
    X, y = load_svmlight(path)
    assert sp.isspmatrix_csr(X) and X.dtype == np.float64 and X.has_sorted_indices
    np.testing.assert_array_equal(y, [1, -1, 1])
    np.testing.assert_array_equal(X.toarray(), [[0.5, 0, -2], [0, 1e-3, 0], [1, 2, 3]])


def test_n_features_and_zero_based(tmp_path):
    path = write(tmp_path, "t.txt", "1 1:1 3:1\n0 2:5\n")
    X, _ = load_svmlight(path, n_features=10)
    assert X.shape == (2, 10)
    X0, _ = load_svmlight(path, zero_based=True)
    assert X0.shape == (2, 4) and X0[1, 2] == 5
    path0 = write(tmp_path, "z.txt", "1 0:1 3:1\n")
    with pytest.raises(ValueError, match=r"z\.txt, line 1: feature index 0 is invalid"):
        load_svmlight(path0)
    assert load_svmlight(path0, zero_based=True)[0].toarray().tolist() == [[1, 0, 0, 1]]


def test_qid_groups_and_query_file(tmp_path):
    path = write(tmp_path, "q.txt", "2 qid:5 1:1\n0 qid:5 2:1\n1 qid:9 1:3\n")
    X, y, g = load_svmlight(path, query_id=True)
    assert g.tolist() == [5, 5, 9] and y.tolist() == [2, 0, 1]
    assert len(load_svmlight(path)) == 2  # groups only on request
    # LightGBM-style query file next to a qid-less file is found automatically
    plain = write(tmp_path, "r.txt", "2 1:1\n0 2:1\n1 1:3\n")
    write(tmp_path, "r.txt.query", "2\n1\n")
    assert load_svmlight(plain, query_id=True)[2].tolist() == [0, 0, 1]
    other = write(tmp_path, "other.query", "1\n2\n")
    assert load_svmlight(plain, query_id=True, query_file=other)[2].tolist() == [0, 1, 1]
    # an explicit query file wins over qid:
    assert load_svmlight(path, query_id=True, query_file=other)[2].tolist() == [0, 1, 1]


def test_unsorted_indices_are_sorted_and_duplicates_policy(tmp_path):
    path = write(tmp_path, "d.txt", "1 3:1 1:2\n0 2:1 2:4 1:1\n")
    with pytest.raises(ValueError, match=r"d\.txt, line 2: feature index 2 appears twice"):
        load_svmlight(path)
    Xs, _ = load_svmlight(path, duplicates="sum")
    Xl, _ = load_svmlight(path, duplicates="last")
    assert Xs.toarray().tolist() == [[2, 0, 1], [1, 5, 0]]
    assert Xl.toarray().tolist() == [[2, 0, 1], [1, 4, 0]]
    assert Xs.has_sorted_indices


@pytest.mark.parametrize(
    "content, line, match",
    [
        ("1 1:1\nabc 1:2\n", 2, "bad label 'abc'"),
        ("1 1:1\nnan 1:2\n", 2, "bad label 'nan'"),
        ("1 1:1\n1 2:1\n0 1:x\n", 3, "bad feature token '1:x'"),
        ("1 1:1\n1 foo\n", 2, "bad feature token 'foo'"),
        ("1 a:1\n", 1, "bad feature token 'a:1'"),
        ("1 1:inf\n", 1, "bad feature token '1:inf'"),
        ("1 1:1\n\n0 0:1\n", 3, "feature index 0 is invalid"),
        ("1 1:1\n0 -3:1\n", 2, "feature index -3 is invalid"),
        ("1 qid:1 1:1\n0 1:1 qid:1\n", 2, "misplaced"),
        ("1 qid:1 1:1\n0 qid:1 2:1\n0 2:1\n", 3, "qid: is given on some lines"),
        ("1 1:1\n0 qid:1 2:1\n", 2, "qid: is given on some lines"),
        ("1 qid:x 1:1\n", 1, "bad query id"),
        ("1 1:1 1:2\n", 1, "appears twice"),
    ],
)
def test_malformed_input_names_file_and_line(tmp_path, content, line, match):
    path = write(tmp_path, "bad.txt", content)
    with pytest.raises(ValueError, match=rf"bad\.txt, line {line}: .*{match}"):
        load_svmlight(path)
    # same diagnosis inside a compressed file
    path = write(tmp_path, "bad.txt.gz", content, "gz")
    with pytest.raises(ValueError, match=rf"bad\.txt\.gz, line {line}: .*{match}"):
        load_svmlight(path)


def test_n_features_too_small_names_line(tmp_path):
    path = write(tmp_path, "w.txt", "1 1:1\n0 2:1\n1 7:1\n")
    with pytest.raises(ValueError, match=r"w\.txt, line 3: feature index 7 exceeds n_features=5"):
        load_svmlight(path, n_features=5)


def test_empty_and_bad_query_files(tmp_path):
    with pytest.raises(ValueError, match="no data lines"):
        load_svmlight(write(tmp_path, "e.txt", "# nothing\n\n"))
    data = write(tmp_path, "r.txt", "1 1:1\n0 1:2\n1 1:3\n")
    write(tmp_path, "r.txt.query", "2\n2\n")
    with pytest.raises(ValueError, match=r"r\.txt\.query: the query sizes add up to 4 rows, but "
                                         r"the data file has 3"):
        load_svmlight(data, query_id=True)
    q = write(tmp_path, "bad.query", "2\nx\n")
    with pytest.raises(ValueError, match=r"bad\.query, line 2: a query size must be a positive"):
        read_query_file(q)
    q = write(tmp_path, "zero.query", "3\n0\n")
    with pytest.raises(ValueError, match=r"zero\.query, line 2"):
        read_query_file(q)
    nogroups = write(tmp_path, "n.txt", "1 1:1\n")
    with pytest.raises(ValueError, match="no qid: tokens and no query file"):
        load_svmlight(nogroups, query_id=True)


def test_bad_options():
    with pytest.raises(ValueError, match="duplicates must be one of"):
        load_svmlight_bytes(b"1 1:1\n", duplicates="max")
    with pytest.raises(ValueError, match="n_features must be a positive int"):
        load_svmlight_bytes(b"1 1:1\n", n_features=0)
    with pytest.raises(ValueError, match="cannot decompress"):
        load_svmlight_bytes(b"\x1f\x8b garbage", name="x.gz")


def random_svmlight_text(rng, n_rows, n_features, with_qid):
    lines = []
    for i in range(n_rows):
        k = int(rng.integers(0, min(6, n_features) + 1))
        idx = np.sort(rng.choice(n_features, k, replace=False)) + 1
        vals = rng.standard_normal(k).round(4)
        toks = [f"{rng.integers(-2, 3)}"]
        if with_qid:
            toks.append(f"qid:{i // 3}")
        toks += [f"{j}:{v}" for j, v in zip(idx, vals)]
        lines.append(" ".join(toks))
    return ("\n".join(lines) + "\n").encode()


def test_fast_path_equals_line_parser():
    rng = np.random.default_rng(0)
    for trial in range(30):
        text = random_svmlight_text(rng, int(rng.integers(1, 40)), 12, trial % 2 == 0)
        X, y, q = load_svmlight_bytes(text, n_features=12)
        X2, y2, q2 = _slow_parse(text, "t", 12, False, "error")
        assert (X != X2).nnz == 0 and X.shape == X2.shape
        np.testing.assert_array_equal(y, y2)
        assert (q is None) == (q2 is None)
        if q is not None:
            np.testing.assert_array_equal(q, q2)


@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2", ".xz"])
def test_dump_roundtrip_and_no_overwrite(tmp_path, suffix):
    rng = np.random.default_rng(1)
    X = sp.random(20, 7, density=0.3, random_state=1, format="csr")
    y = rng.integers(0, 3, 20).astype(float)
    g = np.repeat(np.arange(5), 4)
    path = str(tmp_path / f"out.txt{suffix}")
    dump_svmlight(X, y, path, groups=g)
    X2, y2, g2 = load_svmlight(path, n_features=7, query_id=True)
    np.testing.assert_array_equal(X2.toarray(), X.toarray())
    np.testing.assert_array_equal(y2, y)
    np.testing.assert_array_equal(g2, g)
    with pytest.raises(FileExistsError, match="overwrite=True"):
        dump_svmlight(X, y, path)
    dump_svmlight(X[:3], y[:3], path, overwrite=True)
    assert load_svmlight(path)[0].shape[0] == 3


def test_tfranking_toy_last_duplicate_wins():
    X, y, g = load_tfranking_toy()
    # first row of train.txt has "17:-0.763873 17:0.369905"
    assert X[0, 16] == pytest.approx(0.369905)
    assert X[0, 114] == pytest.approx(-0.617277)


def test_query_id_auto_gives_groups_only_when_the_file_has_them(tmp_path):
    plain = tmp_path / "plain.svm"
    plain.write_text("1 1:0.5\n0 2:1\n")
    X, y, groups = load_svmlight(plain, query_id="auto")
    assert groups is None and X.shape == (2, 2)
    with_qid = tmp_path / "qid.svm"
    with_qid.write_text("1 qid:3 1:0.5\n0 qid:4 2:1\n")
    assert load_svmlight(with_qid, query_id="auto")[2].tolist() == [3, 4]
    (tmp_path / "plain.svm.query").write_text("1\n1\n")
    assert load_svmlight(plain, query_id="auto")[2].tolist() == [0, 1]
    with pytest.raises(ValueError, match="query_id must be"):
        load_svmlight(plain, query_id="yes")


@pytest.mark.parametrize("groups, message", [
    (np.repeat([0.2, 0.7, 1.3, 1.6], 2), r"query id 0.2 \(row 0\).*qid: is an integer.*"
                                         r"np.unique\(groups, return_inverse=True\)\[1\]"),
    (np.repeat(["a", "b"], 4), r"integer query ids.*dtype <U1 \(e.g. 'a'\).*np.unique"),
    (np.r_[np.nan, np.zeros(7)], "groups holds nan at row 0: every row needs a finite integer"),
    (np.zeros(7), r"one query id per row \(8\); got shape \(7,\)"),
])
def test_dump_refuses_query_ids_that_are_not_integers(tmp_path, groups, message):
    """Fails on the old main: float ids were truncated by int() (0.2, 0.7, 1.3, 1.6 were
    written as 0, 0, 1, 1: two queries instead of four); strings and NaN gave int()'s
    ValueError. LIBSVM's qid: is an integer: other ids are refused, with a way to code them."""
    X, y = np.eye(8)[:, :3], np.arange(8) % 2
    path = tmp_path / "q.svm"
    with pytest.raises(ValueError, match=message):
        dump_svmlight(X, y, path, groups=groups)
    assert not path.exists()
    # integers of any type, and floats holding integers, are the ids written
    for ok in (np.repeat([7, 9], 4), np.repeat([7.0, 9.0], 4), np.repeat([7, 9], 4).astype(object),
               np.repeat([7, 9], 4).astype(np.uint16)):
        dump_svmlight(X, y, path, groups=ok, overwrite=True)
        assert load_svmlight(path, query_id=True)[2].tolist() == [7] * 4 + [9] * 4


def test_dump_names_missing_values_in_x(tmp_path):
    """Fails on the old main: pd.NA in X gave float()'s TypeError from deep in numpy."""
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame(np.eye(4)).astype(object)
    X.iloc[1, 2] = pd.NA
    with pytest.raises(ValueError, match=r"X must hold numbers without missing values"):
        dump_svmlight(X, [0, 1, 0, 1], tmp_path / "a.svm")
    X = np.eye(4)
    X[1, 2] = np.nan
    with pytest.raises(ValueError, match="X contains NaN or infinite values"):
        dump_svmlight(X, [0, 1, 0, 1], tmp_path / "a.svm")
    with pytest.raises(ValueError, match="X holds complex numbers"):
        dump_svmlight(np.eye(4) + 1j, [0, 1, 0, 1], tmp_path / "a.svm")


@pytest.mark.parametrize("skip", [1.5, -1, "1", True])
def test_skip_chunks_is_a_non_negative_int(tmp_path, skip):
    """Fails on the old main: 1.5 skipped 2 chunks, -1 was accepted, '1' gave a TypeError."""
    from birank.datasets import iter_svmlight_chunks

    path = tmp_path / "c.svm"
    dump_svmlight(np.eye(6), np.arange(6) % 2, path)
    with pytest.raises(ValueError, match=f"skip_chunks must be an int >= 0; got {skip!r}"):
        list(iter_svmlight_chunks(path, chunk_size=2, skip_chunks=skip))
    assert len(list(iter_svmlight_chunks(path, chunk_size=2, skip_chunks=np.int64(1)))) == 2


def _chunk_groups(path, **kw):
    from birank.datasets import iter_svmlight_chunks

    chunks = list(iter_svmlight_chunks(path, chunk_size=3, **kw))
    return [c[2] for c in chunks], np.concatenate([c[1] for c in chunks])


def test_chunk_groups_equal_the_whole_file_reader(tmp_path):
    """iter_svmlight_chunks(query_id=...) yields each chunk's slice of what
    load_svmlight(query_id=...) returns: qid: tokens, a .query file, or None."""
    rng = np.random.default_rng(0)
    q = np.repeat([4, 9, 2], [3, 4, 2])
    lines = [f"{rng.integers(3)} qid:{g} 1:{rng.normal():.3f}\n" for g in q]
    tokens = tmp_path / "t.svm"
    tokens.write_text("# header\n" + "".join(lines))
    plain = tmp_path / "p.svm"
    plain.write_text("".join(line.replace(f"qid:{g} ", "") for line, g in zip(lines, q)))
    for path in (tokens, plain):
        _, y_whole, g_whole = load_svmlight(path, query_id="auto")
        parts, y = _chunk_groups(path, query_id="auto")
        assert (y == y_whole).all()
        if g_whole is None:
            assert parts == [None, None, None]
        else:
            assert [len(p) for p in parts] == [3, 3, 3]
            assert (np.concatenate(parts) == g_whole).all()
    with pytest.raises(ValueError, match="no qid: tokens and no query file"):
        _chunk_groups(plain, query_id=True)
    (tmp_path / "p.svm.query").write_text("3\n4\n2\n")
    parts, _ = _chunk_groups(plain, query_id=True)
    assert (np.concatenate(parts) == load_svmlight(plain, query_id=True)[2]).all()
    (tmp_path / "p.svm.query").write_text("3\n4\n")
    with pytest.raises(ValueError, match="add up to 7 rows, but the data file has more"):
        _chunk_groups(plain, query_id=True)
    (tmp_path / "p.svm.query").write_text("3\n4\n2\n1\n")
    with pytest.raises(ValueError, match="add up to 10 rows, but the data file has 9 rows"):
        _chunk_groups(plain, query_id=True)
    with pytest.raises(ValueError, match="query_id must be"):
        _chunk_groups(plain, query_id="yes")


def test_chunks_with_and_without_qid_name_the_line(tmp_path):
    """qid: on the lines of one chunk and not of the next is refused at the first data
    line where it changes (comments and blank lines counted)."""
    path = tmp_path / "m.svm"
    path.write_text("1 qid:1 1:1\n0 qid:1 1:2\n1 qid:1 1:3\n# note\n\n0 1:1\n")
    with pytest.raises(ValueError, match=r"m.svm, line 6: qid: is given on some lines"):
        _chunk_groups(path, query_id="auto")
    with pytest.raises(ValueError, match=r"m.svm, line 6: qid: is given on some lines"):
        _chunk_groups(path)  # whether or not the groups are asked for


def test_one_rule_for_a_data_file_s_groups(tmp_path, monkeypatch):
    """groups_or_query_file (load_svmlight's "auto" and every command's rule): the file's
    qid: tokens, else ``<path>.query`` when that is a file (its sizes checked against
    the rows), else None; standard input and a directory of that name have none."""
    from birank.datasets._svmlight import groups_or_query_file

    path = str(tmp_path / "d.svm")
    qid = np.array([4, 4, 9])
    assert groups_or_query_file(path, qid, 3) is qid
    assert groups_or_query_file(path, None, 3) is None
    (tmp_path / "d.svm.query").mkdir()
    assert groups_or_query_file(path, None, 3) is None
    (tmp_path / "d.svm.query").rmdir()
    (tmp_path / "d.svm.query").write_text("2\n1\n")
    assert groups_or_query_file(path, None, 3).tolist() == [0, 0, 1]
    assert groups_or_query_file(path, qid, 3) is qid  # qid: tokens win over "auto"
    with pytest.raises(ValueError, match="add up to 3 rows, but the data file has 4"):
        groups_or_query_file(path, None, 4)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-.query").write_text("3\n")
    assert groups_or_query_file("-", None, 3) is None
