"""What both importers share: the operator's write context, batched transactions that
take a change-log position, progress on stderr, the records' counts, the names a
refused write reports, and the run (``Importer``) that holds them.

Imports write through the API's own validation and write functions (``schemas``,
``repository``), so slugs, UTC times, term counts, the search index and the change
log come out exactly as from ``POST /events``; the position each committed batch takes
(a new write generation) makes running servers drop their cached answers.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import sys
import typing as t

import peewee
from marshmallow import ValidationError

from ..clock import Clock
from ..db import write_transaction
from ..errors import InvalidParams
from ..i18n.catalogs import Translate
from ..i18n.messages import N_
from ..models import User
from ..repository.changes import PendingChanges, collecting_changes
from ..repository.posts import WriteContext
from ..repository.record_locks import R, relocked
from ..repository.series import SeriesLimits
from ..rules.markup import Markup, as_written_by
from ..schemas import MissingParams

#: the statuses ``--status`` accepts (``calendar.md`` §5)
IMPORT_STATUSES = ("publish", "draft", "pending", "private")
PROGRESS_EVERY = 500


@dataclasses.dataclass(frozen=True)
class ImportOptions:
    """The command's choices: created records' status and author, dry run, quiet."""

    site_timezone: str
    clock: Clock
    status: str | None = None
    author: User | None = None
    dry_run: bool = False
    quiet: bool = False
    #: the horizon and cap series writes obey (``calendar.md`` §4.6)
    limits: SeriesLimits = SeriesLimits()


def operator() -> User:
    """The importing operator: an administrator that is not stored, so records get
    the ``--author`` given or no author at all, and statuses are taken as asked."""
    return User(login="", role="administrator", registered=dt.datetime(1970, 1, 1))


def write_context(options: ImportOptions) -> WriteContext:
    return WriteContext(operator(), options.site_timezone, options.clock)


def locked(record: R | None) -> R | None:
    """The matched record as it is once locked for this import's write (None: none,
    or gone meanwhile): an API write of it may have committed since it was matched."""
    return relocked(record) if record is not None else None


def filtered(options: ImportOptions, text: str, markup: Markup) -> str:
    """Untrusted markup as ``security.md`` B2 filters imports: kept only when the
    ``--author`` holds ``unfiltered_html``."""
    return as_written_by(options.author, text, markup)


class _RolledBack(Exception):
    """Handed to a transaction's exit so that it rolls back."""


class Batches:
    """Units of work (one event, one series, one record) in transactions of at most
    ``size`` units. Each unit runs in a savepoint, so a failing one leaves nothing
    behind, its change-log entries included; a batch that wrote takes its position as
    its last step (``repository.changes``), which makes running servers drop their
    cached answers. A dry run rolls every batch back."""

    def __init__(self, database: peewee.Database, size: int, dry_run: bool) -> None:
        self.database = database
        self.size = size
        self.dry_run = dry_run
        self._open: contextlib.ExitStack | None = None
        self._changes = PendingChanges()
        self._units = 0
        self._wrote = False

    def writing(self) -> None:
        """Called before a unit's first write: the batch will take a position."""
        self._wrote = True

    @contextlib.contextmanager
    def unit(self) -> t.Iterator[None]:
        """One unit in its own savepoint; an exception rolls it back and propagates."""
        if self._open is None:
            self._open = contextlib.ExitStack()
            self._open.enter_context(write_transaction(self.database))
            self._changes = self._open.enter_context(collecting_changes())
        with self.savepoint():
            yield
        self._units += 1
        if self._units >= self.size:
            self.flush()

    @contextlib.contextmanager
    def savepoint(self) -> t.Iterator[None]:
        """A savepoint inside the open batch; rolled back, it forgets its entries too."""
        mark = self._changes.mark()
        try:
            with self.database.atomic():
                yield
        except BaseException:
            self._changes.roll_back_to(mark)
            raise

    def flush(self) -> None:
        """Commit (or, in a dry run, roll back) the open batch."""
        if self._open is None:
            return
        batch, self._open = self._open, None
        wrote, self._units, self._wrote = self._wrote, 0, False
        if self.dry_run:  # leaving with an exception rolls back and ends the transaction
            batch.__exit__(_RolledBack, _RolledBack(), None)
            return
        try:
            if wrote or self._changes.entries:
                self._changes.commit()
        except BaseException as exc:
            batch.__exit__(type(exc), exc, exc.__traceback__)
            raise
        batch.__exit__(None, None, None)

    def abort(self) -> None:
        """Roll back the open batch after a database failure."""
        if self._open is None:
            return
        batch, self._open = self._open, None
        self._units, self._wrote = 0, False
        with contextlib.suppress(peewee.PeeweeException):
            batch.__exit__(_RolledBack, _RolledBack(), None)


class Progress:
    """Progress on stderr: one updating line on a terminal, else a line every
    ``PROGRESS_EVERY`` items of lists longer than that; nothing when quiet."""

    def __init__(self, _: Translate, quiet: bool, stream: t.TextIO | None = None) -> None:
        self._ = _
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.tty = self.stream.isatty()
        self._open = False

    def show(self, template: str, done: int, total: int, **values: object) -> None:
        """``template`` (marked with ``N_``) filled with ``done``, ``total``, ``values``."""
        if self.quiet:
            return
        line = self._(template) % {"done": done, "total": total, **values}
        if self.tty:
            self.stream.write("\r" + line + "\x1b[K")
            self.stream.flush()
            self._open = True
        elif total > PROGRESS_EVERY and (done % PROGRESS_EVERY == 0 or done == total):
            self.stream.write(line + "\n")

    def message(self, line: str) -> None:
        """A line that must not be overwritten (a skip, a failure)."""
        self.end()
        self.stream.write(line + "\n")
        self.stream.flush()

    def end(self) -> None:
        if self._open:
            self.stream.write("\n")
            self._open = False


#: the counted record kinds, in the order the summaries print them
KIND_LABELS = {
    "events": N_("%(count)d events"),
    "venues": N_("%(count)d venues"),
    "organizers": N_("%(count)d organizers"),
    "categories": N_("%(count)d categories"),
    "tags": N_("%(count)d tags"),
}


@dataclasses.dataclass
class Tally:
    """What an import did, for the summary line."""

    created: dict[str, int] = dataclasses.field(
        default_factory=lambda: dict.fromkeys(KIND_LABELS, 0)
    )
    updated: int = 0
    unchanged: int = 0
    skipped: int = 0
    failed: int = 0

    def count(self, outcome: str) -> None:
        """One record's outcome: the kind it was created as, ``updated`` or ``unchanged``."""
        if outcome in self.created:
            self.created[outcome] += 1
        elif outcome == "updated":
            self.updated += 1
        else:
            self.unchanged += 1

    def created_text(self, _: Translate, kinds: t.Sequence[str]) -> str:
        return ", ".join(_(KIND_LABELS[kind]) % {"count": self.created[kind]} for kind in kinds)


def refused_params(exc: Exception) -> str:
    """The names of the parameters an API validation refused (else the error's text),
    for the line that reports a skipped or failed record."""
    if isinstance(exc, InvalidParams):
        return ", ".join(exc.errors.messages)
    if isinstance(exc, MissingParams):
        return ", ".join(exc.names)
    if isinstance(exc, ValidationError) and isinstance(exc.messages, dict):
        return ", ".join(str(key) for key in exc.messages)
    return str(exc)


@dataclasses.dataclass
class Importer:
    """One run of an importer: the database it writes, the operator's choices, where
    its progress goes, the language of its messages and what it did."""

    database: peewee.Database
    options: ImportOptions
    progress: Progress
    _: Translate
    tally: Tally = dataclasses.field(default_factory=Tally, kw_only=True)

    @contextlib.contextmanager
    def batched(self, size: int, *, dry_run: bool) -> t.Iterator[Batches]:
        """The run's units of work in batches of ``size``: the last batch committed
        when the run ends, the open one rolled back when it fails."""
        batches = Batches(self.database, size, dry_run)
        try:
            yield batches
            batches.flush()
        except BaseException:
            batches.abort()
            raise
