"""Exceptions shared across layers (a leaf module: it imports nothing from birank)."""

__all__ = ["UserError"]


class UserError(Exception):
    """An error in what the user asked for (bad file, bad option value).

    The command line shows it as one line and exits with status 2; experiments
    raise it for invalid protocol settings.
    """
