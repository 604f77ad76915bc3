"""The command line's own machinery: a translated argparse, the one-line error, and
the options several commands share (``--log-format``).

The command speaks the operator's language (English or French, chosen from the
environment by ``i18n.environment_language``): argparse's own texts (usage prefix,
section titles, ``--help``, the error line) are translated too, and the subcommand
parsers inherit the translation. argparse's diagnostics of bad command lines stay
English; command names, option names and metavars stay English.
"""

from __future__ import annotations

import argparse
import functools
import sys
import typing as t

from ..i18n.catalogs import Translate
from ..telemetry.logs import FORMATS

PROG = "calendar-rest"


class CliError(Exception):
    """A failure worth one line on stderr and exit status 1, not a traceback.

    ``message`` is English, marked with ``N_`` when it is the code's own text, and is
    translated when printed; its named placeholders are filled from ``values``.
    """

    def __init__(self, message: str, **values: object) -> None:
        super().__init__(message)
        self.message = message
        self.values = values

    def render(self, _: Translate) -> str:
        text = _(self.message)
        return text % self.values if self.values else text


def error_line(_: Translate, prog: str, message: str) -> str:
    """The one line reporting an error, newline included."""
    return _("%(prog)s: error: %(message)s") % {"prog": prog, "message": message} + "\n"


class _Formatter(argparse.HelpFormatter):
    """argparse's help layout, with the ``usage:`` prefix in the operator's language."""

    def __init__(self, prog: str, *, usage_prefix: str, **kwargs: t.Any) -> None:
        super().__init__(prog, **kwargs)
        self._usage_prefix = usage_prefix

    def add_usage(
        self,
        usage: str | None,
        actions: t.Iterable[argparse.Action],
        groups: t.Iterable[t.Any],
        prefix: str | None = None,
    ) -> None:
        super().add_usage(usage, actions, groups, self._usage_prefix if prefix is None else prefix)


class Parser(argparse.ArgumentParser):
    """An argument parser whose own texts are in the operator's language."""

    def __init__(self, *, translate: Translate, **kwargs: t.Any) -> None:
        _ = translate
        formatter = functools.partial(_Formatter, usage_prefix=_("usage: "))
        super().__init__(formatter_class=formatter, add_help=False, **kwargs)
        self.translate = translate
        self._positionals.title = _("positional arguments")
        self._optionals.title = _("options")
        self.add_argument(
            "-h",
            "--help",
            action="help",
            default=argparse.SUPPRESS,
            help=_("show this help message and exit"),
        )

    def add_subparsers(self, **kwargs: t.Any) -> t.Any:
        kwargs.setdefault("parser_class", functools.partial(Parser, translate=self.translate))
        return super().add_subparsers(**kwargs)

    def error(self, message: str) -> t.NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, error_line(self.translate, self.prog, message))


def bounded_int(low: int, high: int | None, message: str) -> t.Callable[[str], int]:
    """An argparse ``type``: an integer from ``low`` to ``high``, else ``message``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(message) from None
        if value < low or high is not None and value > high:
            raise argparse.ArgumentTypeError(message)
        return value

    return parse


def add_log_format(parser: argparse.ArgumentParser, _: Translate) -> None:
    """``--log-format json|text``: how every log line of the process is written."""
    parser.add_argument(
        "--log-format",
        choices=FORMATS,
        help=_(
            "log lines as JSON objects or text, each with its request ID "
            "(default: text on a terminal, json otherwise)"
        ),
    )
