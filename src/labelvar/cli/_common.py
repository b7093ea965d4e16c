"""The command line's shared pieces: the parser class, its usage error, value parsers and printing."""

from __future__ import annotations

import argparse
import sys


class UsageError(ValueError):
    """A command-line argument is invalid (reported in one line, exit code 2)."""


class _HelpFormatter(argparse.HelpFormatter):
    """Help that states every option's default: ``(default: X)`` unless the text gives it.

    Like :class:`argparse.ArgumentDefaultsHelpFormatter`, but lists are shown as typed
    (``0.5,0.6``), and options whose default is "not given" (None, False) say nothing.
    """

    def _get_help_string(self, action):
        text = action.help or ""
        default = action.default
        if (not action.option_strings or action.required or "default" in text
                or default in (None, False, "", argparse.SUPPRESS) or default == []):
            return text
        if isinstance(default, (list, tuple)):
            default = ",".join(str(v) for v in default)
        return f"{text} (default: {str(default).replace('%', '%%')})".lstrip()


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose errors are one line, exit code 2, and whose help shows defaults."""

    def __init__(self, *args, formatter_class=_HelpFormatter, **kwargs):
        self.flags: set[str] = set()  # every option string, for :func:`_as_flag`
        self.commands: dict[str, _Parser] = {}  # sub-command name -> its parser
        super().__init__(*args, formatter_class=formatter_class, **kwargs)

    def add_argument(self, *args, **kwargs):  # noqa: D102 - argparse API
        action = super().add_argument(*args, **kwargs)
        self.flags.update(action.option_strings)
        return action

    def add_subparsers(self, **kwargs):  # noqa: D102 - argparse API
        action = super().add_subparsers(**kwargs)
        self.commands = action.choices  # filled as each sub-command is added
        return action

    def error(self, message: str):  # noqa: D102 - argparse API
        raise UsageError(f"{self.prog}: error: {message}")


def _floats(text: str) -> list[float]:
    """Parse ``0.5,0.6`` or ``0.5`` into a (non-empty) list of floats (no empty entry)."""
    try:
        values = [float(x) for x in text.split(",")]
    except ValueError:
        values = []
    if not values:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, got {text!r}")
    return values


def _ints(text: str) -> list[int]:
    """Parse ``10,100`` into a list of ints (no empty entry)."""
    try:
        values = [int(x) for x in text.split(",")]
    except ValueError:
        values = []
    if not values:
        msg = f"expected whole numbers separated by commas, got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return values


def _whole(text: str) -> int:
    """Parse one whole number, also written ``1e6`` or ``1_000``; anything else refused.

    (So ``--n-resamples 1e9`` reaches the range check that names the limit, instead of
    argparse's "invalid int value".)
    """
    try:
        return int(text)
    except ValueError:
        pass
    try:
        x = float(text)
    except ValueError:
        x = float("nan")
    if not (x == x and abs(x) != float("inf") and x == int(x)):
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}")
    return int(x)


def _print_table(table, fmt: str) -> None:
    from labelvar._base._format import render_table

    _write(render_table(table, fmt))


def _write(text: str) -> None:
    """Write to stdout, in ASCII spellings when it cannot encode the table's symbols."""
    from labelvar._base._format import for_stream

    sys.stdout.write(for_stream(text, sys.stdout))


def _strs(text: str) -> list[str]:
    """Parse ``a,b`` into a list of non-empty strings."""
    return [x.strip() for x in text.split(",") if x.strip()]
