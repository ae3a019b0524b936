"""Open three pages of the built site in headless Chromium and screenshot them.

Usage: ``python docs/screenshots.py docs/_build/html OUT_DIR`` (``make docs-check``).
The landing page, one API page and one gallery page are rendered 1280 pixels wide;
the script fails if Chromium is missing, a page is missing, or a screenshot is
blank (a page that did not render has one colour).
"""

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# page -> window height: the gallery page is tall enough to show its figure
PAGES = {"index.html": 1600, "api/generated/birank.RankSVM.html": 1600,
         "auto_examples/plot_online_partial_fit.html": 3000}
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")


def find_browser():
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    raise SystemExit("headless Chromium not found (Debian: apt-get install -y chromium)")


def colours(png):
    """Distinct colours in a PNG (matplotlib reads it without extra packages)."""
    import matplotlib.image as mpimg
    import numpy as np

    img = mpimg.imread(png)
    return len(np.unique(img.reshape(-1, img.shape[-1]), axis=0))


def screenshot(browser, page, out, profile, height):
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--disable-dev-shm-usage", f"--user-data-dir={profile}", f"--window-size=1280,{height}",
           f"--screenshot={out}", page.resolve().as_uri()]
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    site = Path(argv[0] if argv else "docs/_build/html")
    out_dir = Path(argv[1] if len(argv) > 1 else "docs/_build/screenshots")
    out_dir.mkdir(parents=True, exist_ok=True)
    browser = find_browser()
    failures = 0
    with tempfile.TemporaryDirectory() as profile:
        for rel, height in PAGES.items():
            page = site / rel
            if not page.exists():
                print(f"missing page: {page} (run `make docs` first)")
                failures += 1
                continue
            png = out_dir / (rel.replace("/", "_").removesuffix(".html") + ".png")
            screenshot(browser, page, png, profile, height)
            n = colours(png) if png.exists() else 0
            ok = n > 50
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {rel} -> {png} ({n} colours)")
    print(f"docs-check: {len(PAGES) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
