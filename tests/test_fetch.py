"""fetch_libsvm against a local HTTP server on 127.0.0.1: cache, checksums, broken transfers."""

import bz2
import hashlib
import http.server
import lzma
import os
import threading
from importlib import resources

import numpy as np
import pytest

from birank.datasets import download_libsvm, fetch_libsvm, get_data_home, load_a9a, load_heart


def bundled_bytes(name):
    return lzma.decompress((resources.files("birank.datasets") / "data" / name).read_bytes())


class _Handler(http.server.BaseHTTPRequestHandler):
    files = {}  # url path -> bytes
    broken = set()  # url paths served with a too-large Content-Length
    requests = []

    def do_GET(self):  # noqa: N802
        type(self).requests.append(self.path)
        body = self.files.get(self.path)
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if self.path in self.broken:
            self.send_header("Content-Length", str(len(body) + 100_000))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    handler = type("H", (_Handler,), {"files": {}, "broken": set(), "requests": []})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    handler.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/libsvm/"
    yield handler
    httpd.shutdown()
    httpd.server_close()


def cache_files(home):
    d = os.path.join(home, "libsvm")
    return sorted(os.listdir(d)) if os.path.isdir(d) else []


def test_fetch_known_md5_and_cache_hit(server, tmp_path):
    server.files["/libsvm/binary/a9a"] = bundled_bytes("a9a.xz")  # the real LIBSVM a9a
    home = str(tmp_path)
    X, y = fetch_libsvm("a9a", data_home=home, base_url=server.base_url)
    X0, y0 = load_a9a()
    assert (X != X0).nnz == 0 and np.array_equal(y, y0) and X.shape == (32561, 123)
    assert server.requests == ["/libsvm/binary/a9a"]
    assert cache_files(home) == ["binary__a9a"]  # md5 known: no sidecar
    fetch_libsvm("a9a", data_home=home, base_url=server.base_url)
    assert len(server.requests) == 1  # cache hit, no second request


def test_fetch_corrupted_download_known_md5_leaves_nothing(server, tmp_path):
    good = bundled_bytes("a9a.xz")
    server.files["/libsvm/binary/a9a"] = good[:-10] + b"0000000000"
    with pytest.raises(ValueError, match="checksum mismatch .*Nothing was stored"):
        fetch_libsvm("a9a", data_home=str(tmp_path), base_url=server.base_url)
    assert cache_files(str(tmp_path)) == []


def test_trust_on_first_use(server, tmp_path):
    body = bundled_bytes("heart_scale.xz")
    server.files["/libsvm/binary/heart_scale"] = body
    home = str(tmp_path)
    X, y = fetch_libsvm("heart", data_home=home, base_url=server.base_url)
    assert X.shape == load_heart()[0].shape
    assert cache_files(home) == ["binary__heart_scale", "binary__heart_scale.sha256"]
    with open(os.path.join(home, "libsvm", "binary__heart_scale.sha256")) as fh:
        assert fh.read().split()[0] == hashlib.sha256(body).hexdigest()
    fetch_libsvm("heart", data_home=home, base_url=server.base_url)
    assert len(server.requests) == 1
    # a changed cached file is detected on load and NOT silently replaced
    path = os.path.join(home, "libsvm", "binary__heart_scale")
    with open(path, "ab") as fh:
        fh.write(b"+1 1:0.5\n")
    with pytest.raises(ValueError, match="does not match its sha256 checksum"):
        fetch_libsvm("heart", data_home=home, base_url=server.base_url)
    assert os.path.getsize(path) == len(body) + 9
    assert len(server.requests) == 1
    # the user asks for a fresh copy
    paths = download_libsvm("heart", data_home=home, base_url=server.base_url, refresh=True)
    assert open(paths["train"], "rb").read() == body
    # a re-download is checked against the first-use hash
    os.remove(path)
    server.files["/libsvm/binary/heart_scale"] = body.replace(b"+1", b"-1", 1)
    with pytest.raises(ValueError, match="checksum mismatch"):
        fetch_libsvm("heart", data_home=home, base_url=server.base_url)
    assert not os.path.exists(path)


def test_broken_transfer_leaves_no_partial_file(server, tmp_path):
    server.files["/libsvm/binary/heart_scale"] = bundled_bytes("heart_scale.xz")
    server.broken.add("/libsvm/binary/heart_scale")
    with pytest.raises(ConnectionError, match="download of .*heart_scale failed.*no partial file"):
        fetch_libsvm("heart", data_home=str(tmp_path), base_url=server.base_url)
    assert cache_files(str(tmp_path)) == []


def test_http_error_is_clear(server, tmp_path):
    with pytest.raises(ConnectionError, match="404"):
        fetch_libsvm("german.numer", data_home=str(tmp_path), base_url=server.base_url)
    assert cache_files(str(tmp_path)) == []


def test_bz2_file_and_published_width(server, tmp_path, monkeypatch):
    server.files["/libsvm/binary/ijcnn1.t.bz2"] = bz2.compress(b"1 1:0.5 3:1\n-1 2:1\n")
    monkeypatch.setenv("BIRANK_DATA", str(tmp_path / "envhome"))
    assert get_data_home() == str(tmp_path / "envhome")
    X, y = fetch_libsvm("ijcnn1", subset="test", base_url=server.base_url)
    assert X.shape == (2, 22)  # padded to the published 22 features
    assert y.tolist() == [1, -1]
    assert cache_files(str(tmp_path / "envhome")) == ["binary__ijcnn1.t.bz2",
                                                      "binary__ijcnn1.t.bz2.sha256"]


def test_download_if_missing_false_and_bad_names(tmp_path):
    with pytest.raises(FileNotFoundError, match="download_if_missing=False"):
        fetch_libsvm("a9a", data_home=str(tmp_path), download_if_missing=False)
    with pytest.raises(ValueError, match="unknown LIBSVM dataset 'nope'"):
        fetch_libsvm("nope")
    with pytest.raises(ValueError, match="UCI Bank Marketing"):
        fetch_libsvm("bank")
    with pytest.raises(ValueError, match="has no test file"):
        fetch_libsvm("heart", subset="test")
    with pytest.raises(ValueError, match="subset must be"):
        fetch_libsvm("a9a", subset="valid")


@pytest.mark.parametrize("sidecar", [b"", b"\xff\xfe\x00garbage", b"abc123  binary__heart_scale\n"],
                         ids=["empty", "binary", "short"])
def test_corrupted_checksum_file_is_named(server, tmp_path, sidecar):
    server.files["/libsvm/binary/heart_scale"] = bundled_bytes("heart_scale.xz")
    home = str(tmp_path)
    fetch_libsvm("heart", data_home=home, base_url=server.base_url)
    side = os.path.join(home, "libsvm", "binary__heart_scale.sha256")
    with open(side, "wb") as fh:
        fh.write(sidecar)
    with pytest.raises(ValueError,
                       match=r"checksum file .*binary__heart_scale\.sha256 is corrupted"):
        fetch_libsvm("heart", data_home=home, base_url=server.base_url)
    # refresh=True replaces both with a checked download
    download_libsvm("heart", data_home=home, base_url=server.base_url, refresh=True)
    assert fetch_libsvm("heart", data_home=home, base_url=server.base_url)[0].shape == \
        load_heart()[0].shape


def test_failed_refresh_keeps_the_cached_copy(server, tmp_path):
    body = bundled_bytes("heart_scale.xz")
    server.files["/libsvm/binary/heart_scale"] = body
    home = str(tmp_path)
    fetch_libsvm("heart", data_home=home, base_url=server.base_url)
    before = cache_files(home)
    del server.files["/libsvm/binary/heart_scale"]  # the mirror answers 404 now
    with pytest.raises(ConnectionError):
        download_libsvm("heart", data_home=home, base_url=server.base_url, refresh=True)
    assert cache_files(home) == before
    with open(os.path.join(home, "libsvm", "binary__heart_scale"), "rb") as fh:
        assert fh.read() == body
    assert fetch_libsvm("heart", data_home=home, base_url=server.base_url)[0].shape == \
        load_heart()[0].shape


def test_cache_folder_problems_say_what_to_do(server, tmp_path):
    """A data_home that is a file gave NotADirectoryError's errno text; a failed first
    download left an empty cache folder behind."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(NotADirectoryError, match="a file is in the way; give data_home"):
        fetch_libsvm("heart", data_home=str(blocker), base_url=server.base_url)
    home = tmp_path / "fresh"
    with pytest.raises(ConnectionError):  # 404: nothing served
        fetch_libsvm("heart", data_home=str(home), base_url=server.base_url)
    assert not (home / "libsvm").exists()
