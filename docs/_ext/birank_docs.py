"""Sphinx extension: pages generated at build time (see generate.py)."""

from generate import generate_all, rewrite_repo_links


GALLERY_ORDER = ("plot_quick_start.py", "plot_imbalanced_vs_linearsvc.py",
                 "plot_query_groups_tuning.py", "plot_active_sampling_budget.py",
                 "plot_online_partial_fit.py", "plot_pruned_rbf.py",
                 "plot_active_learning_oracle.py", "plot_dask_bbr.py",
                 "plot_calibrated_probabilities.py")


class GalleryOrder:
    """sphinx-gallery sort key: the examples in the order a new user reads them."""

    def __init__(self, src_dir):
        self.src_dir = src_dir

    def __call__(self, filename):
        name = str(filename).rsplit("/", 1)[-1]
        return (GALLERY_ORDER.index(name) if name in GALLERY_ORDER else len(GALLERY_ORDER), name)

    def __repr__(self):
        return "GalleryOrder"


def _config_inited(app, config):
    generate_all(app.srcdir)


def _source_read(app, docname, source):
    source[0] = rewrite_repo_links(docname, source[0], app.srcdir)


def setup(app):
    # before Sphinx lists the source files and autosummary scans them
    app.connect("config-inited", _config_inited)
    app.connect("source-read", _source_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
