"""Reading an ``.ics`` file into components that know their physical line numbers.

icalendar parses values but reports no line numbers (it collects errors in
``component.errors``), while a skipped component must name the lines of its
``BEGIN:`` and of its faulty property (``calendar.md`` §5). So the file is split here,
physical line by physical line (folded lines counted), into top-level components;
each is then parsed on its own by icalendar, so one malformed component cannot spoil
the others.
"""

from __future__ import annotations

import dataclasses
import re
import typing as t

#: a content line: a name, parameters, a colon (RFC 5545 §3.1, leniently)
CONTENT_LINE = re.compile(r'^[A-Za-z0-9-]+(?:;(?:[^":]|"[^"]*")*)?:')


class NotICalendar(Exception):
    """The file is not iCalendar at all (no VCALENDAR)."""


@dataclasses.dataclass
class RawComponent:
    """One top-level component of the VCALENDAR: its name, the physical line of its
    ``BEGIN:``, its content lines unfolded, each with its first physical line."""

    name: str
    begin_line: int
    lines: list[tuple[int, str]]

    def text(self) -> str:
        """The component as CRLF-terminated content lines, for icalendar."""
        return "".join(f"{line}\r\n" for _, line in self.lines)

    def line_of(self, prop: str) -> int:
        """The physical line where property ``prop`` first appears (else ``BEGIN:``)."""
        prefix = prop.upper()
        for number, line in self.lines[1:]:
            head = re.split(r"[;:]", line, maxsplit=1)[0].upper()
            if head == prefix:
                return number
        return self.begin_line

    def first_malformed(self) -> int | None:
        """The physical line of the first line that is not a content line."""
        for number, line in self.lines:
            if not CONTENT_LINE.match(line):
                return number
        return None

    def value(self, prop: str) -> str | None:
        """The raw value of the first ``prop`` line (for messages and simple fields)."""
        for _, line in self.lines[1:]:
            head = re.split(r"[;:]", line, maxsplit=1)[0].upper()
            if head == prop.upper():
                match = CONTENT_LINE.match(line)
                return line[match.end() :] if match else None
        return None


@dataclasses.dataclass
class CalendarFile:
    """The VCALENDAR's own properties and its top-level components, in file order."""

    properties: dict[str, str]
    components: list[RawComponent]


def physical_lines(text: str) -> list[str]:
    """The file's lines: CRLF or LF ends, a UTF-8 BOM tolerated."""
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def unfold(lines: list[str]) -> list[tuple[int, str]]:
    """Logical lines with the 1-based physical number of their first line."""
    logical: list[tuple[int, str]] = []
    for index, line in enumerate(lines, start=1):
        if line[:1] in (" ", "\t") and logical:
            number, previous = logical[-1]
            logical[-1] = (number, previous + line[1:])
        elif line.strip():
            logical.append((index, line))
    return logical


def read_calendar(text: str) -> CalendarFile:
    """Split ``text`` into the calendar's properties and top-level components.

    :raises NotICalendar: no ``BEGIN:VCALENDAR``.
    """
    logical = unfold(physical_lines(text))
    if not logical or logical[0][1].strip().upper() != "BEGIN:VCALENDAR":
        raise NotICalendar()
    properties: dict[str, str] = {}
    components: list[RawComponent] = []
    current: RawComponent | None = None
    depth = 0
    for number, line in logical[1:]:
        upper = line.strip().upper()
        if current is None:
            if upper.startswith("BEGIN:"):
                current = RawComponent(upper[6:], number, [(number, line)])
                depth = 1
            elif upper == "END:VCALENDAR":
                break
            else:
                _calendar_property(properties, line)
            continue
        current.lines.append((number, line))
        if upper.startswith("BEGIN:"):
            depth += 1
        elif upper.startswith("END:"):
            depth -= 1
            if depth == 0:
                components.append(current)
                current = None
    if current is not None:  # an unterminated component still gets reported
        components.append(current)
    return CalendarFile(properties, components)


def _calendar_property(properties: dict[str, str], line: str) -> None:
    match = CONTENT_LINE.match(line)
    if match is None:
        return
    name = re.split(r"[;:]", line, maxsplit=1)[0].upper()
    properties.setdefault(name, line[match.end() :])


__all__: t.Sequence[str] = ("CalendarFile", "NotICalendar", "RawComponent", "read_calendar")
