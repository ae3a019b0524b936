"""Loss codes shared by every kernel and solver (one numbering for the whole package).

Kernels receive an ``int`` loss code; the drivers map the public loss names
(``loss='hinge'`` ...) to it with :func:`loss_code`.
"""

#: hinge ``max(0, 1 - m)``
HINGE = 0
#: squared hinge ``max(0, 1 - m)^2``
SQUARED_HINGE = 1

LOSS_CODES = {"hinge": HINGE, "squared_hinge": SQUARED_HINGE}

__all__ = ["HINGE", "SQUARED_HINGE", "LOSS_CODES", "loss_code"]


def loss_code(name):
    """The code of a loss name; ValueError naming the allowed names otherwise."""
    try:
        return LOSS_CODES[name]
    except (KeyError, TypeError):
        raise ValueError(f"loss must be one of {', '.join(map(repr, LOSS_CODES))}; "
                         f"got {name!r}.") from None
