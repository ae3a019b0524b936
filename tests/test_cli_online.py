"""`birank train` on online models: chunked streaming, checkpoint and resume; the chunk reader."""

import gzip

import numpy as np
import pytest

from birank import CBR
from birank.cli import main
from birank.datasets import dump_svmlight, iter_svmlight_chunks, load_heart, load_svmlight
from birank.model_io import load_model


@pytest.fixture
def heart_file(tmp_path):
    X, y = load_heart()
    path = tmp_path / "heart.svm"
    dump_svmlight(X, y, path)
    return path, X, y


def test_streamed_training_equals_fit(heart_file, tmp_path):
    path, X, y = heart_file
    out = tmp_path / "m.json"
    assert main(["train", "-m", "cbr-diag", "--quiet", "--chunk-size", "40", "--n-features",
                 "13", "--seed", "1", str(path), "-o", str(out)]) == 0
    coef = np.asarray(load_model(out).doc["coef"])
    ref = CBR(covariance="diag", C=1e-3, random_state=1).fit(X, y)
    np.testing.assert_array_equal(coef, ref.coef_)


def test_resumed_training_equals_uninterrupted(heart_file, tmp_path, monkeypatch, capsys):
    path, _, _ = heart_file
    common = ["train", "-m", "oam", "--quiet", "--chunk-size", "30", "--seed", "4",
              "--param", "buffer_size=5", str(path)]
    full = tmp_path / "full.json"
    assert main(common + ["-o", str(full)]) == 0
    ckpt = tmp_path / "state.ckpt"
    calls = {"n": 0}
    from birank.online.oam import OAM

    real = OAM.partial_fit

    def interrupted(self, *a, **k):
        calls["n"] += 1
        if calls["n"] == 5:
            raise KeyboardInterrupt
        return real(self, *a, **k)

    monkeypatch.setattr(OAM, "partial_fit", interrupted)
    part = tmp_path / "part.json"
    assert main(common + ["-o", str(part), "--checkpoint", str(ckpt),
                          "--checkpoint-every", "2"]) == 130
    assert ckpt.exists() and not part.exists()
    monkeypatch.setattr(OAM, "partial_fit", real)
    assert main(common + ["-o", str(part), "--checkpoint", str(ckpt), "--resume"]) == 0
    a, b = load_model(full).doc, load_model(part).doc
    assert a["coef"] == b["coef"] and a["intercept"] == b["intercept"]
    assert b["extra"]["n_samples"] == 270
    # a checkpoint of another run is refused
    assert main(["train", "-m", "oam", "--quiet", "--chunk-size", "31", str(path), "-o",
                 str(tmp_path / "x.json"), "--checkpoint", str(ckpt), "--resume"]) == 2
    assert "chunk_size" in capsys.readouterr().err


def test_first_chunk_with_one_label_needs_classes(tmp_path, capsys):
    path = tmp_path / "sorted.svm"
    X, y = load_heart()
    order = np.argsort(y, kind="stable")
    dump_svmlight(X[order], y[order], path)
    out = tmp_path / "m.json"
    assert main(["train", "-m", "cbr-diag", "--quiet", "--chunk-size", "20", str(path),
                 "-o", str(out)]) == 2
    assert "--classes" in capsys.readouterr().err
    assert main(["train", "-m", "cbr-diag", "--quiet", "--chunk-size", "20", "--classes=-1,1",
                 str(path), "-o", str(out)]) == 0


def test_chunks_match_the_whole_file_and_errors_name_file_lines(tmp_path):
    X, y = load_heart()
    plain = tmp_path / "h.svm"
    dump_svmlight(X, y, plain)
    packed = tmp_path / "h.svm.gz"
    dump_svmlight(X, y, packed)
    whole, wy = load_svmlight(plain)
    for path in (plain, packed):
        seen = []
        chunks = list(iter_svmlight_chunks(path, chunk_size=100,
                                           progress=lambda s, t, m: seen.append((s, t))))
        assert [c[0].shape[0] for c in chunks] == [100, 100, 70]
        assert all(c[0].shape[1] == whole.shape[1] for c in chunks)
        assert (np.vstack([c[0].toarray() for c in chunks]) == whole.toarray()).all()
        assert seen[-1][0] == seen[-1][1]            # the bar ends at the file size
    bad = tmp_path / "bad.svm"
    bad.write_text("1 1:1\n# comment\n-1 2:1\n1 3:x\n")
    with pytest.raises(ValueError, match="bad.svm, line 4"):
        list(iter_svmlight_chunks(bad, chunk_size=2))
    wide = tmp_path / "wide.svm"
    wide.write_text("1 1:1\n-1 2:1\n1 9:1\n")
    with pytest.raises(ValueError, match="line 3: feature index 9 exceeds n_features=5"):
        list(iter_svmlight_chunks(wide, chunk_size=2, n_features=5))
    assert [c[0].shape[1] for c in iter_svmlight_chunks(wide, chunk_size=2)] == [9, 9]
    with pytest.raises(ValueError, match="chunk_size"):
        list(iter_svmlight_chunks(wide, chunk_size=0))
    gzip.open(tmp_path / "empty.gz", "wb").close()
    with pytest.raises(ValueError, match="no data lines"):
        list(iter_svmlight_chunks(tmp_path / "empty.gz", n_features=3))


def _rows(n, seed, base=1):
    rng = np.random.default_rng(seed)
    return "".join(f"{1 if rng.random() < 0.5 else -1} {base}:{rng.random():.4f} "
                   f"{base + 2}:{rng.random():.4f}\n" for _ in range(n))


def test_resume_from_compressed_files_and_a_file_read_otherwise(tmp_path, capsys):
    """A gzip file could not resume past about its compression ratio (decompressed bytes
    consumed were compared with the compressed size); lines appended after a checkpoint
    could change the resolved --zero-based auto, and the resume read the rest otherwise."""
    import bz2

    text = _rows(400, 0)
    for name, pack in (("d.svm.gz", gzip.compress), ("d.svm.bz2", bz2.compress)):
        data = tmp_path / name
        data.write_bytes(pack(text.encode()))
        base = ["train", "-q", "-m", "oam", "--seed", "3", "--chunk-size", "50", str(data),
                "--checkpoint", str(tmp_path / f"{name}.ck"), "--checkpoint-every", "7"]
        assert main(base + ["-o", str(tmp_path / f"{name}.full.json")]) == 0  # 8 chunks
        # the checkpoint (after 7 chunks) has consumed far more bytes than the file holds
        assert main(base + ["-o", str(tmp_path / f"{name}.again.json"), "--resume"]) == 0
        assert load_model(tmp_path / f"{name}.full.json").doc["coef"] == \
            load_model(tmp_path / f"{name}.again.json").doc["coef"]
    plain = tmp_path / "p.svm"
    plain.write_text(text)
    ck = tmp_path / "p.ck"
    base = ["train", "-q", "-m", "oam", "--seed", "3", "--chunk-size", "50", str(plain),
            "--checkpoint", str(ck)]
    assert main(base + ["-o", str(tmp_path / "p.json")]) == 0
    plain.write_text(text + "1 0:0.5\n")  # index 0 appended: "auto" now reads it 0-based
    assert main(base + ["-o", str(tmp_path / "p2.json"), "--resume"]) == 2
    assert "now reads as 0-based" in capsys.readouterr().err


def test_damaged_checkpoint_and_stdin_models_record_the_base(tmp_path, capsys, monkeypatch):
    import io
    import pickle

    data = tmp_path / "z.svm"
    data.write_text(_rows(200, 1, base=0))  # 0-based
    ck = tmp_path / "z.ck"
    base = ["train", "-q", "-m", "oam", "--seed", "3", "--chunk-size", "50", str(data),
            "--checkpoint", str(ck)]
    assert main(base + ["-o", str(tmp_path / "z.json")]) == 0
    state = pickle.loads(ck.read_bytes())
    del state["options"]  # an edited checkpoint that still unpickles
    ck.write_bytes(pickle.dumps(state))
    assert main(base + ["-o", str(tmp_path / "z2.json"), "--resume"]) == 2
    assert "is damaged or was edited (options" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data.read_bytes())))
    assert main(["train", "-q", "-m", "oam", "--seed", "3", "-", "-o",
                 str(tmp_path / "s.json")]) == 0
    assert load_model(tmp_path / "s.json").doc["extra"]["zero_based"] is True


@pytest.mark.parametrize("how", ["file", "gzip", "stdin"])
def test_online_models_refuse_query_ids_unless_no_groups(tmp_path, capsys, monkeypatch, how):
    """Fails on the old main: an online model trained on a file with qid: fields ranked all
    rows together without a word. It is now refused as for the batch models without
    per-query pairs; --no-groups trains on the pooled rows, the same model as a file
    without the qid: fields."""
    import io
    import sys

    X, y = load_heart()
    qid = np.repeat(np.arange(27), 10)
    plain, with_qid = tmp_path / "plain.svm", tmp_path / "q.svm"
    dump_svmlight(X, y, plain)
    dump_svmlight(X, y, with_qid, groups=qid)
    src = str(with_qid)
    if how == "gzip":
        src = str(tmp_path / "q.svm.gz")
        with gzip.open(src, "wb") as f:
            f.write(with_qid.read_bytes())
    elif how == "stdin":
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(with_qid.read_bytes())))
        src = "-"
    common = ["train", "-m", "cbr-diag", "--quiet", "--seed", "2", "--chunk-size", "50"]
    out = tmp_path / "m.json"
    assert main(common + [src, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "has query ids" in err and "--no-groups" in err and not out.exists()
    if how == "stdin":
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(with_qid.read_bytes())))
    assert main(common + ["--no-groups", src, "-o", str(out)]) == 0
    ref = tmp_path / "ref.json"
    assert main(common + [str(plain), "-o", str(ref)]) == 0
    assert load_model(out).doc["coef"] == load_model(ref).doc["coef"]


def test_online_only_options_given_to_a_batch_fit_say_they_are_ignored(tmp_path, capsys):
    """--chunk-size (a user bounding memory), --checkpoint-every and --classes were
    silently ignored by a model fitted in one go, and --chunk-size by an online model
    reading a CSV whole (--checkpoint is refused for both): one note says so (none
    with -q), and the fit is the one without them."""
    import json

    svm = tmp_path / "t.svm"
    svm.write_text("1 1:1 2:0.5\n-1 2:1\n1 1:0.8 3:0.2\n-1 3:1 2:0.3\n")
    csv = tmp_path / "t.csv"
    csv.write_text("label,a,b\n1,1,0.5\n-1,0,1\n1,0.8,0\n-1,0,0.3\n")
    plain = tmp_path / "plain.json"
    assert main(["train", "-q", str(svm), "-o", str(plain)]) == 0
    out = tmp_path / "m.json"
    argv = ["train", str(svm), "-o", str(out), "--chunk-size", "2", "--classes", "-1,1",
            "--checkpoint-every", "3"]
    assert main(argv) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if "note:" in line]
    assert notes == ["note: --chunk-size, --checkpoint-every, --classes apply to online "
                     "models only; 'ranksvm' is fitted on the whole file at once: ignored"]
    assert json.loads(out.read_text())["coef"] == json.loads(plain.read_text())["coef"]
    assert main([*argv, "-q", "--force"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["train", "-m", "oam", str(csv), "-o", str(out), "--force",
                 "--chunk-size", "2"]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if "note:" in line]
    assert notes == [f"note: --chunk-size applies to a LIBSVM file on disk (streamed in "
                     f"chunks); {csv} (read as csv) is read whole: ignored"]
    assert main(["train", "-m", "oam", str(svm), "-o", str(out), "--force"]) == 0
    assert "note:" not in capsys.readouterr().err
