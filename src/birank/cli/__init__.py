"""The ``birank`` command.

Each sub-command lives in its own module with ``register(subparsers)``, which
adds a parser whose ``func(args)`` runs it. A :class:`UserError` (bad file,
bad option value, unknown name) prints one line to stderr and exits 2; no
traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from ..exceptions import UserError  # defined low so that experiments can raise it

__all__ = ["main", "UserError"]

# sub-command modules, in the order shown by ``birank --help``
_COMMANDS = ("_train", "_predict", "_evaluate", "_reproduce", "_datasets", "_demo")


def build_parser():
    parser = argparse.ArgumentParser(
        prog="birank",
        description="Large-scale bipartite ranking: train, predict, evaluate, reproduce papers.",
    )
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"birank {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in _COMMANDS:
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:  # a command not built yet
            if exc.name == f"{__name__}.{name}":
                continue
            raise
        module.register(sub)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result = args.func(args)
    except (UserError, ValueError, TypeError, FileNotFoundError, PermissionError,
            IsADirectoryError) as exc:
        # ValueError/TypeError raised by our validators carry a message naming the
        # argument; show it as is.
        print(f"birank {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"birank {args.command}: interrupted", file=sys.stderr)
        return 130
    return int(result or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
