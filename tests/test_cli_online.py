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
    ref = CBR(covariance="diag", random_state=1).fit(X, y)
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
