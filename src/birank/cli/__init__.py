"""The ``birank`` command.

Each sub-command lives in its own module with ``register(subparsers)``, which
adds a parser whose ``func(args)`` runs it. A :class:`UserError` (bad file,
bad option value, unknown name) prints one line to stderr and exits 2; no
traceback unless ``birank --traceback`` or ``BIRANK_DEBUG=1``. An unknown
option, command or choice gets a "did you mean" suggestion.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import importlib
import os
import re
import sys
import warnings

from .._progress import end_line
from ..exceptions import UserError  # defined low so that experiments can raise it

__all__ = ["main", "UserError"]

# sub-command modules, in the order shown by ``birank --help``
_COMMANDS = ("_train", "_predict", "_evaluate", "_reproduce", "_datasets", "_demo",
             "_active_learn")


def _suggest(word, options, renamed=None):
    """``"; did you mean 'X'?"`` for the option closest to ``word``, or ""; ``renamed``
    maps a deprecated name among ``options`` to the name suggested for it."""
    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    if not close:
        return ""
    return f"; did you mean {(renamed or {}).get(close[0], close[0])!r}?"


class _DefaultsInHelp:
    """Formatter mixin: an option whose help does not state its default gets "(default: X)"."""

    def _get_help_string(self, action):
        text = action.help or ""
        default = action.default
        if (not action.option_strings or "default" in text.lower() or default is None
                or isinstance(default, bool) or default == [] or default is argparse.SUPPRESS):
            return text
        if isinstance(default, (list, tuple)):
            default = " ".join(map(str, default))
        return f"{text} (default: {str(default).replace('%', '%%')})".lstrip()

    # Lines break at spaces only, never after a hyphen: an option or data set name stays
    # whole ("--relevance-threshold", "OHSUMED-rel2"), not "OHSUMED-" and "rel2".
    def _split_lines(self, text, width):
        if isinstance(self, argparse.RawTextHelpFormatter):
            return super()._split_lines(text, width)
        import textwrap

        text = self._whitespace_matcher.sub(" ", text).strip()
        return textwrap.wrap(text, width, break_on_hyphens=False)

    def _fill_text(self, text, width, indent):
        if isinstance(self, argparse.RawDescriptionHelpFormatter):
            return super()._fill_text(text, width, indent)
        import textwrap

        text = self._whitespace_matcher.sub(" ", text).strip()
        return textwrap.fill(text, width, initial_indent=indent, subsequent_indent=indent,
                             break_on_hyphens=False)


class Parser(argparse.ArgumentParser):
    """argparse with "did you mean" for unknown options and invalid choices, and every
    option's default in its help."""

    def __init__(self, *args, formatter_class=argparse.HelpFormatter, **kwargs):
        if not issubclass(formatter_class, _DefaultsInHelp):
            formatter_class = type(formatter_class.__name__, (_DefaultsInHelp, formatter_class),
                                   {})
        super().__init__(*args, formatter_class=formatter_class, **kwargs)

    # An option that must be given though argparse cannot require it (a hidden deprecated
    # name may give it instead: cli._common.add_deprecated_name) shows as required in the
    # usage line, of --help and of an error alike.
    def format_usage(self):
        with self._usage_required():
            return super().format_usage()

    def format_help(self):
        with self._usage_required():
            return super().format_help()

    @contextlib.contextmanager
    def _usage_required(self):
        marked = [a for a in self._actions
                  if getattr(a, "usage_required", False) and not a.required]
        for action in marked:
            action.required = True
        try:
            yield
        finally:
            for action in marked:
                action.required = False

    def parse_known_args(self, args=None, namespace=None):
        namespace, extras = super().parse_known_args(args, namespace)
        self._running = self._command_run(namespace)  # (for error's suggestions)
        return namespace, extras

    def _command_run(self, namespace):
        """The parser of the (sub-)command ``namespace`` ran: the deepest one chosen."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                sub = action.choices.get(getattr(namespace, action.dest, None))
                if sub is not None:
                    return sub._command_run(namespace)
        return self

    def _option_strings(self):
        """Every option of this parser and its sub-commands shown in --help (a hidden one,
        such as a deprecated name, is never suggested)."""
        out = []
        for action in self._actions:
            if action.help is not argparse.SUPPRESS:
                out.extend(action.option_strings)
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    out.extend(sub._option_strings())
        return out

    def _renamed_options(self):
        """``{deprecated name: current name}`` of this parser and its sub-commands (a hidden
        option whose dest is ``deprecated_<dest>``: cli._common.add_deprecated_name)."""
        out = {}
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    out.update(sub._renamed_options())
            elif action.help is argparse.SUPPRESS and action.dest.startswith("deprecated_"):
                dest = action.dest[len("deprecated_"):]
                current = [a.option_strings[-1] for a in self._actions
                           if a.dest == dest and a.option_strings]
                if current:
                    out.update(dict.fromkeys(action.option_strings, current[0]))
        return out

    def error(self, message):
        m = re.match(r"unrecognized arguments: (.*)", message)
        if m:
            words = m.group(1).split()
            unknown = [w for w in words if w.startswith("-")] or words
            word = unknown[0].split("=")[0]
            own = [o for a in self._actions for o in a.option_strings]
            if word in own:  # birank's own option, given after the command
                hint = f"; {word} goes before the command (birank {word} COMMAND ...)"
            elif word in self._option_strings():
                hint = " (an option of another command; see birank COMMAND --help)"
            else:  # the command run's options only (a misspelt deprecated name: the current)
                running = getattr(self, "_running", self)
                renamed = running._renamed_options()
                hint = _suggest(word, [*running._option_strings(), *renamed], renamed)
            message = f"unrecognized argument {unknown[0]!r}{hint}"
        m = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if m:
            choices = re.findall(r"'([^']*)'", m.group(2)) or \
                [c.strip() for c in m.group(2).split(",")]
            message += _suggest(m.group(1), choices)
        super().error(message)


def build_parser(argv=None):
    """The argument parser; ``argv`` lets it skip work for commands not asked for."""
    parser = Parser(
        prog="birank",
        description="Large-scale bipartite ranking: train, predict, evaluate, reproduce papers.",
    )
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"birank {__version__}")
    parser.add_argument("--traceback", action="store_true",
                        help="show the full Python traceback of an error (also: BIRANK_DEBUG=1)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    for name in _COMMANDS:
        module = importlib.import_module(f"{__name__}.{name}")
        if name == "_reproduce":
            # the experiment modules (numpy, scikit-learn, numba) only when needed
            words = [a for a in (sys.argv[1:] if argv is None else argv)
                     if not a.startswith("-")]
            module.register(sub, full=bool(words) and words[0] == "reproduce")
        else:
            module.register(sub)
    return parser


#: commands that may compile kernels: they ask ``birank._kernels`` to say so on its first
#: import (``predict`` scores a linear model without them)
_NOTICE_COMMANDS = ("train", "evaluate", "active-learn", "demo", "reproduce")


#: options whose value may start with "-" and a digit ("--classes -1,1"): argparse would
#: read such a value as an unknown option
_SIGNED_VALUE_OPTIONS = ("--classes",)


def _join_signed_values(argv):
    """``--classes -1,1`` as ``--classes=-1,1`` (LIBSVM's usual labels are -1 and +1)."""
    out = []
    for a in argv:
        if out and out[-1] in _SIGNED_VALUE_OPTIONS and re.match(r"-\d", a):
            out[-1] = f"{out[-1]}={a}"
        else:
            out.append(a)
    return out


def main(argv=None):
    parser = build_parser(argv)
    args = parser.parse_args(_join_signed_values(sys.argv[1:] if argv is None else list(argv)))
    notice = (args.command in _NOTICE_COMMANDS and not getattr(args, "quiet", False)
              and not getattr(args, "json", False) and "BIRANK_COMPILE_NOTICE" not in os.environ)
    if notice:
        os.environ["BIRANK_COMPILE_NOTICE"] = "1"
    try:
        return _run(args)
    finally:
        if notice:  # (main() called in-process, e.g. from a test, leaves no trace)
            os.environ.pop("BIRANK_COMPILE_NOTICE", None)


def _warning_printer(command):
    """``warnings.showwarning`` for a command: one line naming the command, as its errors
    do, instead of Python's source path and code line (kept with --traceback)."""
    def show(message, category, filename, lineno, file=None, line=None):
        end_line()  # a progress line open on the terminal: the warning on a line of its own
        kind = "" if category is UserWarning else f" ({category.__name__})"
        print(f"birank {command}: warning{kind}: {message}",
              file=sys.stderr if file is None else file)
    return show


def _run(args):
    debug = args.traceback or os.environ.get("BIRANK_DEBUG", "") not in ("", "0")
    with warnings.catch_warnings():
        if not debug:
            warnings.showwarning = _warning_printer(args.command)
        return _run_command(args, debug)


def _missing_extra(exc):
    """The pip extra that installs the optional package an ImportError is about, or None
    (an ImportError of anything else is a bug: an internal error)."""
    from .._extras import EXTRAS

    while exc is not None:
        name = (getattr(exc, "name", None) or "").split(".")[0]
        if name in EXTRAS:
            return EXTRAS[name]
        if 'pip install "birank[' in str(exc):  # birank._extras.require's message
            return str(exc).split('pip install "birank[', 1)[1].split("]", 1)[0]
        exc = exc.__cause__ or exc.__context__
    return None


def _run_command(args, debug):
    try:
        return _run_func(args, debug)
    finally:
        end_line()  # nothing printed later (the shell's prompt) is glued to a progress line


def _run_func(args, debug):
    try:
        result = args.func(args)
    except BrokenPipeError:  # `birank predict ... | head`: the reader left; not an error
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, AttributeError, ValueError):
            pass
        return 141
    except (UserError, ValueError, TypeError, OSError) as exc:
        # ValueError/TypeError raised by our validators carry a message naming the
        # argument, and our file errors (OSError) name the file; show them as is.
        if debug:
            raise
        end_line()  # (an error during a progress line: on a line of its own)
        print(f"birank {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if debug:
            raise
        end_line()
        print(f"birank {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if debug:
            raise
        end_line()
        extra = _missing_extra(exc) if isinstance(exc, ImportError) else None
        if extra is not None:  # an optional package not installed: the user's to install
            text = str(exc) if f"birank[{extra}]" in str(exc) else (
                f"{exc}; install it with: pip install \"birank[{extra}]\"")
            print(f"birank {args.command}: error: {text}", file=sys.stderr)
            return 2
        print(f"birank {args.command}: internal error: {type(exc).__name__}: {exc}\n"
              "(run again with `birank --traceback ...` or BIRANK_DEBUG=1 for the "
              "traceback, and please report it)", file=sys.stderr)
        return 1
    return int(result or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
