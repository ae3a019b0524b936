"""The roles of a table's columns that are not features: its label, its query id and the
columns ignored, as a training file was read (:func:`record`, kept in the model file by
``birank train``), and the same roles found again in a file to score (:func:`apply`,
``birank predict``), so that it needs none of the training command's column options.

A record names the columns when the training file's header names each of them once,
else gives their 0-based positions and the file's width (``n_columns``).
"""

from __future__ import annotations

#: the keys of a record; ``n_columns`` only in a record by position
KEYS = ("label", "qid", "ignored", "n_columns")


def record(info):
    """The record of a CSV/TSV/.npy file read by ``load_table(..., info=info)``, or None
    (LIBSVM and .npz input have no columns)."""
    columns = info.get("columns")
    if columns is None:
        return None
    header = info.get("header")
    lab, qid, ignored = columns["label"], columns["qid"], columns["ignored"]
    used = [j for j in (lab, qid, *ignored) if j is not None]
    if header is not None and all(header.count(header[j]) == 1 for j in used):
        return {"label": header[lab], "qid": None if qid is None else header[qid],
                "ignored": [header[j] for j in ignored]}
    return {"label": lab, "qid": qid, "ignored": list(ignored),
            "n_columns": columns["n_columns"]}


def check(roles):
    """Why ``roles`` (read from a model file) is not a record, or None when it is one."""
    if not isinstance(roles, dict) or not {"label", "qid", "ignored"} <= set(roles) \
            or not set(roles) <= set(KEYS) or not isinstance(roles["ignored"], list):
        return f"expected an object with keys label, qid, ignored[, n_columns]; got {roles!r:.80}"
    specs = [roles["label"], *roles["ignored"]] + ([] if roles["qid"] is None
                                                  else [roles["qid"]])
    if "n_columns" not in roles:
        if not all(isinstance(s, str) for s in specs):
            return "column names must be strings (or give n_columns and positions)"
        return None
    n = roles["n_columns"]
    if not (isinstance(n, int) and not isinstance(n, bool) and n >= 2 and all(
            isinstance(s, int) and not isinstance(s, bool) and 0 <= s < n for s in specs)):
        return "positions must be integers from 0 to n_columns - 1 (n_columns >= 2)"
    return None


def hint_names(roles):
    """The column names of a record (they mark a first line as a header, as the names
    given to ``--label-column`` do)."""
    if not roles or "n_columns" in roles:
        return ()
    return tuple(s for s in (roles["label"], roles["qid"], *roles["ignored"]) if s is not None)


def _locator(roles, header, n_cols):
    """``spec -> its column in this file, or None``, or None when the record does not
    apply to the file (names without a header; positions of another width than the
    training file's, or than it without the label: new data to score)."""
    if "n_columns" not in roles:
        if header is None:
            return None
        return lambda s: header.index(s) if s in header else None
    n, lab = roles["n_columns"], roles["label"]
    if n_cols == n:
        return lambda j: j
    if n_cols == n - 1:  # every column but the label: those after it move one left
        return lambda j: None if j == lab else j - (j > lab)
    return None


def apply(roles, header, n_cols, label_column, qid_column, ignore_columns, where):
    """``(label_column, qid_column, ignore_columns, label_absent)`` to read a table of
    ``n_cols`` columns (``header``: its names, or None) whose training file had ``roles``.

    The options given (``label_column``, ...) keep their columns; each other column the
    record names and the file holds takes its recorded role, or is ignored when the option
    of that role names another column. ``label_absent``: the file lacks the label (data to
    score); the label returned is then a placeholder column, the first the record and the
    options leave to the features (the reader needs one).
    """
    from ._formats import _column, _ignored

    ignore_columns = tuple(ignore_columns)
    place = _locator(roles, header, n_cols) if roles else None
    if place is None:
        return label_column, qid_column, ignore_columns, False
    # (the options' own columns, resolved here as the reader will: the same errors)
    taken = set(_ignored(ignore_columns, header, n_cols, where))
    for spec, what in ((label_column, "label"), (qid_column, "query id")):
        j = _column(spec, header, n_cols, what, where)
        if j is not None:
            taken.add(j)
    lab = place(roles["label"])
    qid = None if roles["qid"] is None else place(roles["qid"])
    drop = []
    for j, role in ((lab, "label"), (qid, "qid")):
        if j is None or j in taken:
            continue
        if role == "label" and label_column is None:
            label_column = j
        elif role == "qid" and qid_column is None:
            qid_column = j
        else:  # its option names another column: not a feature either
            drop.append(j)
        taken.add(j)
    for j in map(place, roles["ignored"]):
        if j is not None and j not in taken:
            drop.append(j)
            taken.add(j)
    absent = label_column is None and lab is None
    if absent:
        from ._formats import QID_NAMES

        if qid_column is None and header is not None:  # (the query id the reader will take)
            taken |= {j for j, name in enumerate(header) if name in QID_NAMES}
        label_column = next((j for j in range(n_cols) if j not in taken), None)
        absent = label_column is not None
    return label_column, qid_column, ignore_columns + tuple(drop), absent
