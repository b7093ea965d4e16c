"""The ``labelvar`` parser with all subcommands and :func:`main`, the one error boundary."""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence

from labelvar.cli._common import UsageError, _Parser
from labelvar.cli._design import _add_design
from labelvar.cli._judge import _add_judge
from labelvar.cli._raters import _add_raters
from labelvar.cli._readers import _add_readers
from labelvar.cli._stratify import _add_stratify
from labelvar.cli._sweeps import _add_collect, _add_sweep
from labelvar.cli._tables import _add_expect, _add_tables


def build_parser() -> _Parser:
    """Build the ``labelvar`` argument parser with all subcommands."""
    parser = _Parser(
        prog="labelvar",
        description="Evaluate AI systems and human experts when the ground-truth annotators "
        "disagree (the coin-toss paradigm of arXiv:2601.05500).",
        epilog="Run `labelvar COMMAND --help` for the options of a command. Shell completion "
        "(bash, zsh) of the commands and of `labelvar sweep`'s config groups and keys: "
        'eval "$(labelvar -sc install=bash)".',
    )
    from labelvar._base._provenance import version

    parser.add_argument("--version", action="version", version=f"labelvar {version()}",
                        help="print labelvar's version (the installed package's metadata)")
    parser.add_argument("--debug", action="store_true",
                        help="show the full traceback of an error instead of one line")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    _add_expect(sub)
    _add_tables(sub)
    _add_sweep(sub)
    _add_collect(sub)
    _add_stratify(sub)
    _add_design(sub)
    _add_raters(sub)
    _add_readers(sub)
    _add_judge(sub)
    return parser


def _subcommands(parser) -> list[str]:
    """The subcommand names of ``parser`` (what shell completion offers after ``labelvar``)."""
    return [name for action in parser._subparsers._group_actions for name in action.choices]


#: optional dependencies: import name -> the extra that installs it
_EXTRAS = {"pyarrow": "parquet", "hydra_plugins": "cluster", "submitit": "cluster",
           "joblib": "cluster", "sklearn": "test"}


def _one_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def _describe(exc: BaseException) -> tuple[int, str]:
    """Exit code and the one line that explains an expected failure.

    2: bad input (a value, a file, a missing optional dependency); 1: a run that
    failed (out of memory, disk full, anything unexpected).
    """
    import errno

    if isinstance(exc, UnicodeDecodeError):
        return 2, f"a file is not UTF-8 text ({exc.reason} at byte {exc.start}); convert it to UTF-8"
    if isinstance(exc, UsageError):
        return 2, str(exc)
    if isinstance(exc, ValueError):
        return 2, _one_line(str(exc)) or "invalid value"
    if isinstance(exc, ImportError):
        text = f"{exc.name or ''} {exc}"
        top = next((m for m in _EXTRAS if m in text), (exc.name or "").split(".")[0])
        hint = (f"pip install 'labelvar[{_EXTRAS[top]}]'" if top in _EXTRAS
                else f"pip install {top}" if top else "check the installation")
        return 2, f"optional dependency {top or '?'!r} is not available ({_one_line(str(exc))}); {hint}"
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        where = f" writing {exc.filename}" if exc.filename else ""
        return 1, f"disk full{where}; free space or choose another --out"
    if isinstance(exc, OSError):
        reason = exc.strerror or _one_line(str(exc)) or type(exc).__name__
        where = f"{exc.filename}: " if exc.filename else ""
        return 2, f"{where}{reason}"
    if isinstance(exc, MemoryError):
        return 1, "out of memory; use smaller sizes (items, replicates, labels) or a bigger machine"
    if type(exc).__module__.startswith(("yaml", "omegaconf")):
        return 2, f"invalid configuration: {_one_line(str(exc))}"
    return 1, (f"the run failed: {type(exc).__name__}: {_one_line(str(exc))} "
               "(rerun with --debug for the traceback)")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``labelvar`` command line; return the exit code.

    The one error boundary: every expected failure is one line on stderr
    (``labelvar: error: ...``), exit code 2 for bad input and 1 for a run that
    failed; ``--debug`` (anywhere before a ``sweep``'s own arguments) shows the
    traceback instead. A closed output pipe (``labelvar tables | head``) ends quietly.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] in (["-sc"], ["--shell-completion"]):  # Hydra's completion script calls this
        from labelvar.cli._sweeps import shell_completion

        return shell_completion(argv, _subcommands(build_parser()))
    head = argv[: argv.index("sweep") + 1] if "sweep" in argv else argv
    debug = "--debug" in head
    if debug:
        argv.remove("--debug")
    parser: _Parser = build_parser()
    try:
        args = parser.parse_args(argv)
        code = int(args.func(args) or 0)
        sys.stdout.flush()
        return code
    except SystemExit:
        raise
    except KeyboardInterrupt:
        print("labelvar: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except BaseException as exc:
        if debug:
            raise
        code, msg = _describe(exc)
        if isinstance(exc, ValueError) and not isinstance(exc, UsageError):
            msg = _as_flag(msg, parser, argv)
        if not re.match(r"labelvar( [a-z]+)?: error: ", msg):  # argparse's own are prefixed
            msg = f"labelvar: error: {msg}"
        print(msg, file=sys.stderr)
        return code


def _as_flag(msg: str, parser: _Parser, argv: Sequence[str]) -> str:
    """A message naming Python parameters names the flags the user typed instead.

    ``n_items must be >= 1`` becomes ``--n-items must be >= 1`` when the command has
    that flag (Python names and flags differ only by ``_``/``-``); the pilot's
    parameters (``labels``, ``selection``) are ``labelvar design``'s ``--pilot-*`` flags.
    Inside the message, ``name=value`` becomes ``--name value``, a name with an
    underscore becomes its flag, and so does a plain name listed beside a flag
    (``needs accuracy_b and delta`` -> ``needs --accuracy-b and --delta``); other
    words are left alone (``power`` in "target power" is prose).
    """
    sub = next((a for a in argv if not a.startswith("-")), None)
    command = parser.commands.get(sub)
    if command is None:
        return msg

    def flag(name: str) -> str | None:
        name = name.replace("_", "-")
        return next((f for f in (f"--{name}", f"--pilot-{name}") if f in command.flags), None)

    head = re.match(r"[a-z][a-z0-9_]*(?=( must| is |:| '| \())", msg)
    if head and flag(head.group()):
        msg = flag(head.group()) + msg[head.end():]

    def assigned(m: re.Match) -> str:  # name=value, name='value' -> --name value
        f = flag(m.group(1))
        return m.group() if f is None else f"{f} {m.group(3) if m.group(3) is not None else m.group(4)}"

    msg = re.sub(r"(?<![\w-])([a-z][a-z0-9_]*)=('([^']*)'|([^\s,;)]+))", assigned, msg)
    msg = re.sub(r"(?<![\w'-])(?<![-+*/<>] )([a-z][a-z0-9]*_[a-z0-9_]+)(?![\w'])(?! [-+*/<>])",
                 lambda m: flag(m.group(1)) or m.group(), msg)  # (not inside a formula)
    listed = re.compile(r"(--[a-z0-9-]+)( and | or |, )([a-z][a-z0-9_]*)(?![\w'-])")
    msg = listed.sub(lambda m: m.group(1) + m.group(2) + (flag(m.group(3)) or m.group(3)), msg)
    # "(selection='top=3', --pilot-selection top=3)" names one flag twice once mapped
    return re.sub(r"\((--[a-z0-9-]+ [^(),]+), \1\)", r"(\1)", msg)


def _silence_stdout() -> None:
    """After a closed pipe, point stdout at /dev/null so the exit flush cannot fail."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout without a file descriptor
        pass
