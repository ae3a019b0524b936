"""The reproductions and benchmarks find a data set in either layout of their data folder:
laid out by hand (``DATA_HOME/NAME/FILE``) or downloaded there by ``birank datasets fetch``
/ ``fetch_letor`` (served here by a local HTTP server, so the files sit exactly where a
download puts them). A file found in neither is named with both places."""

import hashlib

import numpy as np
import pytest
from test_fetch import server  # noqa: F401  (the local LIBSVM mirror)

from birank.datasets import (
    LETOR_DATASETS,
    LIBSVM_DATASETS,
    download_libsvm,
    fetch_letor,
    load_svmlight,
)
from birank.datasets._locate import find_data_file
from birank.experiments import donmez, gultekin_paisley, khalid, lin_jan_lin, shen_lin


def libsvm_bytes(seed, n, d, labels, qid=False):
    """n rows of d features, labels cycling through ``labels`` (a query per 4 rows)."""
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(n):
        q = f" qid:{i // 4 + 1}" if qid else ""
        feats = " ".join(f"{j + 1}:{v:.4f}" for j, v in enumerate(rng.uniform(-1, 1, d)))
        lines.append(f"{labels[i % len(labels)]:g}{q} {feats}")
    return ("\n".join(lines) + "\n").encode()


#: name -> (train bytes, test bytes or None), served at the LIBSVM paths of the catalogue
SETS = {
    "svmguide3": (libsvm_bytes(0, 30, 5, [1, -1]), libsvm_bytes(1, 20, 5, [1, -1])),
    "cod-rna": (libsvm_bytes(2, 30, 8, [1, -1]), libsvm_bytes(3, 10, 8, [1, -1])),
    "w8a": (libsvm_bytes(4, 40, 6, [1, -1]), libsvm_bytes(8, 10, 6, [1, -1])),
    "letter": (libsvm_bytes(5, 30, 4, [1, 2, 3]), libsvm_bytes(6, 15, 4, [1, 2, 3])),
    "mg": (libsvm_bytes(7, 25, 6, [0.5, 1.25, -0.75, 2.0]), None),
}
REMOTE = {name: (LIBSVM_DATASETS[name]["train"], LIBSVM_DATASETS[name]["test"]) for name in SETS}
MQ2008 = [libsvm_bytes(10 + k, 8, 46, [0, 1, 2, 0], qid=True) for k in range(5)]


def serve(server, names):  # noqa: F811
    for name in names:
        for remote, body in zip(REMOTE[name], SETS[name]):
            if remote is not None:
                server.files[f"/libsvm/{remote}"] = body


@pytest.fixture
def fetched(server, tmp_path):  # noqa: F811
    """A data folder holding only what `birank datasets fetch NAME` downloaded into it."""
    serve(server, SETS)
    home = tmp_path / "fetched"
    for name in SETS:
        download_libsvm(name, data_home=home, base_url=server.base_url)
    return home


@pytest.fixture
def by_hand(tmp_path):
    """The same files as published, one folder per set (the user's own layout)."""
    home = tmp_path / "by_hand"
    for name, (train, test) in SETS.items():
        for remote, body in zip(REMOTE[name], (train, test)):
            if remote is not None:
                path = home / name / remote.rsplit("/", 1)[-1]
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(body)
    return home


def rows(body):
    return body.count(b"\n")


# ------------------------------------------------------------------ the helper itself

def test_the_users_file_comes_first_then_the_download(fetched, tmp_path):
    assert find_data_file(fetched, "w8a/w8a") == fetched / "libsvm" / "binary__w8a"
    (fetched / "w8a").mkdir()
    (fetched / "w8a" / "w8a").write_bytes(b"1 1:1\n")
    assert find_data_file(fetched, "w8a/w8a") == fetched / "w8a" / "w8a"
    # several names of one file: every one in the folder before any download
    (fetched / "mg_scale").write_bytes(b"1 1:1\n")
    assert find_data_file(fetched, "mg/mg", "mg_scale") == fetched / "mg_scale"
    assert find_data_file(fetched, "mg/mg", "nothing") == fetched / "libsvm" / "regression__mg"
    # an absolute path is that file only
    assert find_data_file(fetched, str(tmp_path / "w8a" / "w8a")) is None


def test_a_missing_file_is_named_with_both_places(tmp_path):
    assert find_data_file(tmp_path, "w8a/w8a") is None
    with pytest.raises(FileNotFoundError) as err:
        find_data_file(tmp_path, "w8a/w8a", required=True)
    msg = str(err.value)
    assert str(tmp_path / "w8a" / "w8a") in msg
    assert str(tmp_path / "libsvm" / "binary__w8a") in msg
    assert f"birank datasets fetch w8a --data-home {tmp_path}" in msg
    # a file no download gives: the folder only, no command that would not fetch it
    with pytest.raises(FileNotFoundError) as err:
        find_data_file(tmp_path, "bank/bank.libsvm", required=True)
    assert str(err.value) == f"no {tmp_path / 'bank' / 'bank.libsvm'}"
    # a LETOR partition: fetch_letor's place and call
    with pytest.raises(FileNotFoundError) as err:
        find_data_file(tmp_path, "MQ2008/S3.txt", required=True)
    assert str(tmp_path / "letor" / "MQ2008__S3.txt") in str(err.value)
    assert "fetch_letor('MQ2008'" in str(err.value)


def test_a_compressed_download_is_found_by_the_published_name(server, tmp_path):  # noqa: F811
    import bz2

    body = libsvm_bytes(20, 12, 22, [1, -1])
    server.files["/libsvm/binary/ijcnn1.bz2"] = bz2.compress(body)
    download_libsvm("ijcnn1", data_home=tmp_path, base_url=server.base_url, subset="train")
    path = find_data_file(tmp_path, "ijcnn1/ijcnn1")
    assert path == tmp_path / "libsvm" / "binary__ijcnn1.bz2"
    assert load_svmlight(path)[0].shape == (12, 22)


def test_a_download_that_fails_its_checksum_is_an_error_not_a_missing_file(fetched):
    (fetched / "libsvm" / "binary__w8a").write_bytes(b"1 1:1\n")  # changed since the download
    with pytest.raises(ValueError, match="binary__w8a does not match its sha256"):
        find_data_file(fetched, "w8a/w8a")


# ------------------------------------------------------------------ every reproduction

@pytest.mark.parametrize("layout", ["fetched", "by_hand"])
def test_gultekin_finds_both_layouts(layout, request):
    home = request.getfixturevalue(layout)
    assert gultekin_paisley.missing_data(home) == []
    X, y, Xt, yt = gultekin_paisley._load_data(home, "svmguide3")
    assert X.shape == (30, 22) and Xt.shape == (20, 22)  # the published width
    np.testing.assert_array_equal(y, load_svmlight(find_data_file(home, "svmguide3/svmguide3"))[1])


def test_gultekin_names_a_missing_test_file(server, tmp_path):  # noqa: F811
    serve(server, ["svmguide3"])
    download_libsvm("svmguide3", data_home=tmp_path, base_url=server.base_url, subset="train")
    [(name, where)] = gultekin_paisley.missing_data(tmp_path)
    assert name == "svmguide3" and "svmguide3.t" in where
    assert str(tmp_path / "libsvm" / "binary__svmguide3.t") in where
    assert gultekin_paisley._load_data(tmp_path, "svmguide3") is None  # not half a set


@pytest.mark.parametrize("layout", ["fetched", "by_hand"])
def test_shen_lin_finds_both_layouts(layout, request):
    home = request.getfixturevalue(layout)
    specs = {n: shen_lin.SPECS[n] for n in ("w8a", "letter")}
    assert shen_lin.missing_data(specs, home) == []
    info, splits = shen_lin.load_splits(shen_lin.SPECS["letter"], data_home=home, max_folds=1)
    assert info["rows"] == rows(SETS["letter"][0]) + rows(SETS["letter"][1])  # joined
    info, splits = shen_lin.load_splits(shen_lin.SPECS["w8a"], data_home=home, max_folds=1)
    assert info["rows"] == rows(SETS["w8a"][0])


def test_shen_lin_names_both_places_and_no_wrong_command(tmp_path):
    missing = dict(shen_lin.missing_data({n: shen_lin.SPECS[n] for n in
                                          ("a9a", "w8a", "bank")}, tmp_path))
    assert "a9a" not in missing  # bundled with birank
    assert str(tmp_path / "w8a" / "w8a") in missing["w8a"]
    assert str(tmp_path / "libsvm" / "binary__w8a") in missing["w8a"]
    assert "birank datasets fetch w8a" in missing["w8a"]
    # bank is not on the LIBSVM page: `birank datasets fetch bank` would be refused
    assert "datasets fetch" not in missing["bank"] and "UCI" in missing["bank"]
    with pytest.raises(FileNotFoundError, match="binary__w8a"):
        shen_lin.load_splits(shen_lin.SPECS["w8a"], data_home=tmp_path)


def test_shen_lin_never_puts_the_bundled_copy_in_place_of_a_file_the_user_named(tmp_path):
    spec = shen_lin.DatasetSpec("a9a", (str(tmp_path / "gone" / "a9a"),))
    with pytest.raises(FileNotFoundError, match="gone"):
        shen_lin.load_splits(spec, data_home=tmp_path)


@pytest.mark.parametrize("layout", ["fetched", "by_hand"])
def test_lin_jan_lin_finds_both_layouts(layout, request):
    home = request.getfixturevalue(layout)
    assert lin_jan_lin.missing_data(["mg"], home) == []
    X, y, src = lin_jan_lin.load_real("mg", data_home=home)
    assert X.shape == (25, 6) and np.abs(X).max() == 1.0
    assert src == str(find_data_file(home, "mg/mg"))


def test_lin_jan_lin_prefers_the_users_file_and_downloads_into_the_data_folder(
        fetched, server, tmp_path, monkeypatch):  # noqa: F811
    (fetched / "mg").mkdir()
    (fetched / "mg" / "mg_scale").write_bytes(SETS["mg"][0][: SETS["mg"][0].index(b"\n") + 1]
                                              * 3)
    assert lin_jan_lin.load_real("mg", data_home=fetched)[2].endswith("mg_scale")
    empty = tmp_path / "empty"
    [(name, where)] = lin_jan_lin.missing_data(["mg"], empty)
    assert str(empty / "mg" / "mg_scale") in where and "regression__mg" in where
    assert "--download" in where
    # --download puts the set where the next run (and `birank datasets fetch`) finds it
    monkeypatch.setattr("birank.datasets._fetch.DEFAULT_BASE_URL", server.base_url)
    lin_jan_lin.load_real("mg", data_home=empty, download=True)
    assert lin_jan_lin.missing_data(["mg"], empty) == []


@pytest.mark.parametrize("layout", ["fetched", "by_hand"])
def test_khalid_finds_both_layouts(layout, request):
    home = request.getfixturevalue(layout)
    assert khalid.missing_sets(["cod-rna", "svmguide3"], home) == []
    X, y01, info = khalid.load_dataset("cod-rna", data_home=home)
    assert X.shape == (40, 8)  # training and test parts
    assert info["source"] == ("LIBSVM cache: cod-rna" if layout == "fetched"
                              else "data folder: cod-rna/")


def test_khalid_says_when_only_the_training_part_was_fetched(server, tmp_path):  # noqa: F811
    serve(server, ["cod-rna"])
    download_libsvm("cod-rna", data_home=tmp_path, base_url=server.base_url, subset="train")
    X, _, info = khalid.load_dataset("cod-rna", data_home=tmp_path)
    assert X.shape == (30, 8) and "training part only" in info["source"]
    [(name, where)] = khalid.missing_sets(["svmguide3"], tmp_path)
    assert str(tmp_path / "svmguide3" / "svmguide3") in where
    assert str(tmp_path / "libsvm" / "binary__svmguide3") in where
    assert "birank datasets fetch svmguide3" in where


def test_donmez_finds_fetch_letors_downloads_and_names_both_places(server, tmp_path,  # noqa: F811
                                                                    monkeypatch):
    home = tmp_path / "fetched"
    [(name, where)] = donmez.missing_data(["MQ2008"], home)
    assert str(home / "MQ2008" / "S1.txt") in where
    assert str(home / "letor" / "MQ2008__S1.txt") in where and "fetch_letor" in where
    # our partitions, their md5 in the catalogue (it checks every download)
    monkeypatch.setitem(LETOR_DATASETS["MQ2008"], "md5",
                        [hashlib.md5(b).hexdigest() for b in MQ2008])
    base = server.base_url.replace("/libsvm/", "/letor/")
    for k, body in enumerate(MQ2008, 1):
        server.files[f"/letor/MQ2008/S{k}.txt"] = body
    for k in range(1, 6):  # the advice of the message: folds 1..5, test, give all five
        fetch_letor("MQ2008", fold=k, subset="test", data_home=home, base_url=base)
    assert donmez.missing_data(["MQ2008"], home) == []
    label, seed, X, y, g, Xt, yt, gt = next(donmez._splits("MQ2008", home, 1, True))
    assert X.shape == (24, 46) and Xt.shape == (8, 46)  # three partitions train, one tests
