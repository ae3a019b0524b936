"""Check every internal link of the built site: the target file exists and, for
``page.html#anchor``, the page has an element with that id.

Usage: ``python docs/check_links.py docs/_build/html`` (run by ``make docs``).
External links (``http(s)://``, ``mailto:``) are not followed: the build
machine may have no internet.
"""

import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class _Collector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "a" and "name" in attrs:
            self.ids.add(attrs["name"])
        for key in ("href", "src"):
            if attrs.get(key):
                self.links.append(attrs[key])


def _parse(path, cache):
    if path not in cache:
        parser = _Collector()
        parser.feed(path.read_text(encoding="utf-8", errors="replace"))
        cache[path] = parser
    return cache[path]


def broken_links(root):
    """Return ``[(page, link, reason)]`` for every broken internal link under ``root``."""
    root = Path(root).resolve()
    cache, broken = {}, []
    for page in sorted(root.rglob("*.html")):
        if {"_modules", "_static", "_sources"} & set(page.relative_to(root).parts):
            # viewcode listings link into themselves; theme templates are not pages
            continue
        for link in _parse(page, cache).links:
            if re.match(r"^[a-z][a-z0-9+.-]*:", link, re.I) or link.startswith("//"):
                continue  # http:, https:, mailto:, data:, javascript:
            parts = urlsplit(link)
            target = page if not parts.path else (page.parent / unquote(parts.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append((page.relative_to(root), link, "missing file"))
                continue
            if parts.fragment and target.suffix == ".html":
                if unquote(parts.fragment) not in _parse(target, cache).ids:
                    broken.append((page.relative_to(root), link, "missing anchor"))
    return broken


def main(argv=None):
    root = (argv or sys.argv[1:] or ["docs/_build/html"])[0]
    broken = broken_links(root)
    for page, link, reason in broken:
        print(f"{page}: {link}: {reason}")
    n_pages = sum(1 for _ in Path(root).rglob("*.html"))
    if broken:
        print(f"{len(broken)} broken internal links in {n_pages} pages")
        return 1
    print(f"internal links: all resolve ({n_pages} pages)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
