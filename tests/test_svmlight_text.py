"""The compiled LIBSVM reader against the line-by-line reference parser (brute force).

``_kernel_parse`` must give exactly what ``_slow_parse`` gives (the same rows, columns,
and value bits, -0.0 included) on every text it accepts, and hand every text it does
not read plainly back to the reference parsers (None), whose result or error the
loader then returns unchanged.
"""

import numpy as np
import pytest

from birank.datasets._svmlight import _kernel_parse, _slow_parse, load_svmlight_bytes

pytestmark = pytest.mark.kernel


def _number(rng):
    """A decimal in one of the spellings Python's float() reads."""
    form = rng.integers(10)
    x = float(rng.normal() * 10.0 ** rng.integers(-6, 7))
    if form == 0:
        return repr(x)  # up to 17 significant digits: beyond the fast path
    if form == 1:
        return f"{x:.6g}"
    if form == 2:
        return f"{x:.3e}".replace("e", "E" if rng.integers(2) else "e")
    if form == 3:
        return str(int(rng.integers(-1000, 1000)))
    if form == 4:
        return rng.choice(["0", "-0", "+0.0", "-0.000", "0e5", ".5", "5.", "-.25", "+7"])
    if form == 5:
        return f"{x:.15g}"
    if form == 6:
        return f"{rng.integers(1, 10)}e{rng.integers(-30, 31)}"  # some beyond 10^22
    if form == 7:
        return "0.000" + str(rng.integers(1, 10**6))
    if form == 8:
        return str(rng.integers(0, 10**17))  # integers beyond 15 digits
    return f"{x:.2f}"


def _text(rng, rows, width, qid, zero_based, blanks=True):
    lines = []
    base = 0 if zero_based else 1
    for i in range(rows):
        if blanks and rng.random() < 0.1:
            lines.append(rng.choice(["", "  ", "# a comment", "\t# x:1"]))
        idx = np.sort(rng.choice(width, size=rng.integers(0, min(width, 6) + 1),
                                 replace=False)) + base
        toks = [_number(rng)]
        if qid:
            toks.append(f"qid:{int(rng.integers(-3, 50))}")
        toks += [f"{j}:{_number(rng)}" for j in idx]
        sep = " " if rng.random() < 0.7 else "\t"
        line = sep.join(toks)
        if rng.random() < 0.2:
            line += "  # trailing note with : and _ and é"
        if rng.random() < 0.2:
            line += "\r"  # CRLF line ends
        lines.append(line)
    return ("\n".join(lines) + ("\n" if rng.random() < 0.5 else "")).encode()


def _same(a, b):
    (X, y, q), (X2, y2, q2) = a, b
    assert X.shape == X2.shape
    assert (X.indptr == X2.indptr).all() and (X.indices == X2.indices).all()
    assert X.data.tobytes() == X2.data.tobytes()  # the same bits, -0.0 included
    assert y.tobytes() == y2.tobytes()
    assert (q is None) == (q2 is None)
    if q is not None:
        assert (q == q2).all()


@pytest.mark.parametrize("qid", [False, True])
@pytest.mark.parametrize("zero_based", [False, True])
def test_kernel_equals_the_line_parser(qid, zero_based):
    rng = np.random.default_rng(int(qid) * 2 + int(zero_based))
    for _ in range(40):
        text = _text(rng, int(rng.integers(1, 30)), 9, qid, zero_based)
        out = _kernel_parse(text, zero_based)
        assert out is not None
        ref = _slow_parse(text, "t", None, zero_based, "error")
        _same(out, ref)


@pytest.mark.parametrize("text", [
    b"1 1:inf\n", b"nan 1:1\n", b"1 1:1_0\n", b"1 1:1e400\n", b"1e999 1:1\n",
    "1 1:\u00bd\n".encode(), b"1 1:1\x1c2:1\n", b"1 2:1 1:1\n", b"1 1:1 1:2\n",
    b"1 qid:1 1:1\n0 1:1\n", b"1 1:1\n0 qid:1 1:1\n", b"1 +3:1\n", b"1 0:1\n",
    b"1 99999999999:1\n", b"1 1:1 qid:3\n", b"1 1:1:1\n", b"1 1\n", b"1 :1\n", b"1 1:\n",
    b"1 1:1e\n", b"1 1:.\n", b"qid:1 1:1\n", b"1 qid:+1 1:1\n", b"# only a comment\n\n",
])
@pytest.mark.parametrize("duplicates", ["error", "sum"])
def test_what_the_kernel_does_not_read_goes_to_the_reference(text, duplicates):
    """Unusual or invalid text: the kernel declines (None), and the loader returns what
    the reference parsers return, or raises their error (naming the line)."""
    assert _kernel_parse(text, False) is None
    try:
        ref = _slow_parse(text, "t", None, False, duplicates)
    except ValueError as exc:
        with pytest.raises(ValueError) as got:
            load_svmlight_bytes(text, name="t", duplicates=duplicates, chunk_bytes=1 << 20)
        assert str(got.value) == str(exc)
    else:
        big = text * (300_000 // len(text) + 1)  # above the size of the compiled path
        out = load_svmlight_bytes(big, name="t", duplicates=duplicates)
        whole = _slow_parse(big, "t", None, False, duplicates)
        assert out[0].shape[0] == whole[0].shape[0] == ref[0].shape[0] * (
            300_000 // len(text) + 1)
        assert (out[0] != whole[0]).nnz == 0 and out[1].tobytes() == whole[1].tobytes()


def test_loader_uses_the_kernel_and_equals_the_reference():
    """Above the small-file size the loader's result is the kernel's: equal to the
    reference parser's, chunks and widths included."""
    rng = np.random.default_rng(5)
    text = _text(rng, 20_000, 40, True, False)
    assert len(text) > 300_000
    X, y, q = load_svmlight_bytes(text, chunk_bytes=100_000)
    X2, y2, q2 = _slow_parse(text, "t", None, False, "error")
    assert X.shape[0] == X2.shape[0] and X.shape[1] == X2.shape[1]
    _same((X, y, q), (X2, y2, q2))
    assert X.indices.dtype == np.int32


def _decimal_cases(rng, n):
    """Decimal spellings that stress the rounding: doubles printed in full (17 digits)
    over the whole exponent range, 16-18 digit decimals, and 18-digit truncations of the
    exact midpoints between neighbouring doubles, one unit below and above."""
    from decimal import Decimal, getcontext

    getcontext().prec = 60
    x = rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300, n)
    out = [repr(float(v)) for v in x]
    out += [f"{int(rng.integers(10**15, 10**18))}e{int(rng.integers(-330, 300))}"
            for _ in range(n)]
    for v in x[: n // 4]:
        mid = (Decimal(float(v)) + Decimal(float(np.nextafter(v, np.inf)))) / 2
        digits, exponent = mid.as_tuple().digits, mid.as_tuple().exponent
        m = int("".join(map(str, digits[:18])))
        e = exponent + len(digits) - 18
        sign = "-" if v < 0 else ""
        out += [f"{sign}{m + d}e{e}" for d in (-1, 0, 1)]
    return out


def test_long_decimals_are_rounded_as_float_does():
    """Every number the kernel converts itself is float()'s double, bit for bit; those it
    leaves (``hard``) are few (the caller converts them with float())."""
    from numba import config

    from birank._kernels.svmlight_text import OK, parse_svmlight_text
    from birank.datasets._svmlight import MAX_FEATURE_INDEX

    rng = np.random.default_rng(11)
    cases = _decimal_cases(rng, 400 if config.DISABLE_JIT else 40_000)
    text = ("\n".join(cases) + "\n").encode()
    n = len(cases)
    labels, hard = np.empty(n + 1), np.empty((n + 1, 3), dtype=np.int64)
    status, rows, _, n_hard, _, _ = parse_svmlight_text(
        np.frombuffer(text, dtype=np.uint8), False, MAX_FEATURE_INDEX, labels,
        np.empty(n + 1, dtype=np.int64), np.empty(n + 2, dtype=np.int64),
        np.empty(0, dtype=np.int32), np.empty(0), hard)
    assert status == OK and rows == n
    left = set((-hard[:n_hard, 0] - 1).tolist())
    mine = [i for i in range(n) if i not in left]
    expected = np.array([float(cases[i]) for i in mine])
    assert labels[mine].tobytes() == expected.tobytes()
    assert len(left) < 0.05 * n  # most of them decided by the 128-bit product


def test_a_file_read_in_place_parses_as_its_bytes(tmp_path, monkeypatch):
    """read_raw(in_place=True), load_svmlight's whole read (where the block reader
    declines), reads a regular file into one bytearray: the same content as the
    blockwise read; and load_svmlight gives the same matrix as from its bytes."""
    from birank.datasets import _svmlight, load_svmlight

    rng = np.random.default_rng(8)
    text = _text(rng, 6_000, 30, False, False)
    path = tmp_path / "t.svm"
    path.write_bytes(text)
    monkeypatch.setattr(_svmlight, "CHUNK_BYTES", 50_000)  # several reads and chunks
    raw = _svmlight.read_raw(path, in_place=True)
    assert isinstance(raw, bytearray) and raw == _svmlight.read_raw(path) == text
    X, y = load_svmlight(path)
    X2, y2, _ = load_svmlight_bytes(text)
    _same((X, y, None), (X2, y2, None))
    assert isinstance(_svmlight.read_raw(tmp_path / "t.svm"), bytes)  # the default


def _parse_file(path, block_bytes):
    from birank.datasets._svmlight import _kernel_parse_file

    with open(path, "rb") as fh:
        return _kernel_parse_file(fh, False, block_bytes)


@pytest.mark.parametrize("qid", [False, True])
def test_a_file_read_a_block_at_a_time_equals_its_whole_text(tmp_path, qid):
    """The compiled reader over a file in blocks (two passes: counts, then the blocks cut
    after their last newline) gives the whole text's result, whatever the block size:
    lines longer than a block, CRLF cut between two blocks, no newline at the end."""
    rng = np.random.default_rng(9 + qid)
    text = _text(rng, 3_000, 40, qid, False).rstrip(b"\n") + b"\n"
    # a last line of 3 KB, with no newline
    text += b"1 " + b"qid:2 " * qid + b" ".join(b"%d:%d" % (j, j) for j in range(1, 400))
    path = tmp_path / "t.svm"
    path.write_bytes(text)
    whole = _kernel_parse(text, False)
    assert whole is not None and text.count(b"\r\n") > 100
    for block in (1_000, 4_099, 65_536, len(text) + 1):
        _same(_parse_file(path, block), whole)


@pytest.mark.parametrize("text", [
    b"\xef\xbb\xbf1 1:1\n", b"1 1:1\r0 1:2\r", b"1 2:1 1:1\n", b"1 qid:1 1:1\n0 1:1\n",
    b"# only a comment\n",
])
def test_a_file_the_block_reader_does_not_take_is_read_whole(tmp_path, text):
    """A byte-order mark, CR-only line ends, text the reader declines, compressed data:
    the block reader returns None and load_svmlight reads the whole text as before
    (the same result or the same error)."""
    import gzip

    from birank.datasets import load_svmlight

    big = text * (300_000 // len(text) + 1)
    for name, raw in (("t.svm", big), ("t.svm.gz", gzip.compress(big))):
        path = tmp_path / name
        path.write_bytes(raw)
        assert _parse_file(path, 50_000) is None
        try:
            ref = load_svmlight_bytes(raw, name=str(path))
        except ValueError as exc:
            with pytest.raises(ValueError) as got:
                load_svmlight(path)
            assert str(got.value) == str(exc)
        else:
            _same(load_svmlight(path, query_id="auto"), ref)


def test_load_svmlight_takes_the_block_reader_and_a_growing_file_is_read_again(
        tmp_path, monkeypatch):
    """load_svmlight reads a plain file of 256 KiB and more in blocks (the whole text is
    never read), with its n_features; a file that grows, or changes a piece's counts,
    between the two passes is declined (and read whole)."""
    from birank.datasets import _svmlight, load_svmlight

    rng = np.random.default_rng(11)
    text = _text(rng, 8_000, 30, True, False).rstrip(b"\n") + b"\n"
    assert len(text) > _svmlight._SMALL_BYTES
    path = tmp_path / "t.svm"
    path.write_bytes(text)

    def no_whole_read(*args, **kwargs):
        raise AssertionError("the whole text was read")

    with monkeypatch.context() as m:
        m.setattr(_svmlight, "read_bytes", no_whole_read)
        X, y, q = load_svmlight(path, query_id=True, n_features=35)
    ref = load_svmlight_bytes(text, n_features=35)
    _same((X, y, q), ref)
    assert X.shape[1] == 35

    pieces = _svmlight._file_pieces

    def changed_after_pass_1(change):
        def cut(fh, block_bytes):
            got = pieces(fh, block_bytes)
            change()  # (another process writes to the file between the two passes)
            return got
        return cut

    def append():
        with open(path, "ab") as fh:
            fh.write(b"1 qid:1 1:1\n" * 50)

    def overwrite():  # the same size, a colon less in the first piece
        raw = bytearray(path.read_bytes())
        raw[raw.index(b"qid:")+3] = ord(" ")
        path.write_bytes(bytes(raw))

    for change in (append, overwrite):
        path.write_bytes(text)
        for n_jobs in (None, 2):
            with monkeypatch.context() as m:
                m.setattr(_svmlight, "_file_pieces", changed_after_pass_1(change))
                with open(path, "rb") as fh:
                    assert _svmlight._kernel_parse_file(fh, False, 50_000, n_jobs=n_jobs) is None
            path.write_bytes(text)
    append()
    X, y, q = load_svmlight(path, query_id=True)  # the grown file, read in blocks
    assert X.shape[0] == ref[0].shape[0] + 50


def test_a_file_s_pieces_on_threads_give_the_same_arrays(tmp_path):
    """load_svmlight(n_jobs=2): the pieces parsed on threads at rows and entries apart,
    then moved together, give the one-thread arrays bit for bit (qid:, comment and blank
    lines, numbers left to float(), a last line without a newline)."""
    from birank.datasets import _svmlight, load_svmlight

    rng = np.random.default_rng(12)
    text = _text(rng, 12_000, 30, True, False)
    last = repr(float(np.nextafter(0.1, 1))).encode()  # (17 digits) and a subnormal
    text = text.rstrip(b"\n") + b"\n1 qid:3 2:" + last + b" 7:1e-320"
    path = tmp_path / "t.svm"
    path.write_bytes(text)
    one = load_svmlight(path, query_id=True)
    _same(one, load_svmlight_bytes(text))
    for block in (20_000, 65_536):
        with open(path, "rb") as fh:
            pieces = _svmlight._file_pieces(fh, block)
        assert len(pieces) > 5 and pieces[0][0] == 0 and pieces[-1][1] == len(text)
        assert all(a[1] == b[0] for a, b in zip(pieces, pieces[1:]))
        for n_jobs in (1, 2, -1):
            with open(path, "rb") as fh:
                _same(_svmlight._kernel_parse_file(fh, False, block, n_jobs=n_jobs), one)
    _same(load_svmlight(path, query_id=True, n_jobs=2), one)


@pytest.mark.parametrize("n_jobs", [0, 1.5, True, "2"])
def test_load_svmlight_refuses_a_bad_n_jobs_whatever_the_file(tmp_path, n_jobs):
    from birank.datasets import load_svmlight

    path = tmp_path / "small.svm"
    path.write_bytes(b"1 1:1\n0 2:1\n")  # (one thread would do: still refused)
    with pytest.raises(ValueError, match="n_jobs must be None or a nonzero int"):
        load_svmlight(path, n_jobs=n_jobs)
