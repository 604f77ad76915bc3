"""HTML descriptions as plain text, for iCalendar's ``DESCRIPTION`` (``calendar.md`` §3.2).

The standard library's HTML parser walks the markup: tags are dropped and entities
decoded; ``<br>`` and the ends of block elements become line breaks, list items start
with ``- ``, the contents of ``script`` and ``style`` are dropped, and runs of blank
lines collapse into one.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

#: elements whose start and end break the line
BLOCKS = frozenset(
    {
        "address", "article", "aside", "blockquote", "dd", "div", "dl", "dt", "figcaption",
        "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main",
        "nav", "ol", "p", "pre", "section", "table", "tbody", "td", "tfoot", "th", "thead",
        "tr", "ul",
    }
)  # fmt: skip
#: elements whose text is not content
HIDDEN = frozenset({"script", "style", "template", "head", "title"})
BLANK_LINES = re.compile(r"\n{3,}")
SPACES = re.compile(r"[ \t\r\f\v]+")


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in HIDDEN:
            self.hidden += 1
        elif tag == "br":
            self.parts.append("\n")
        elif tag in BLOCKS:
            self.line_break(1)
            if tag == "li":
                self.parts.append("- ")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br":
            self.parts.append("\n")
        elif tag in BLOCKS:
            self.line_break(1)

    def handle_endtag(self, tag: str) -> None:
        if tag in HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in BLOCKS:
            self.line_break(2 if tag == "p" else 1)

    def line_break(self, count: int) -> None:
        """End the line (``count`` 2: and leave a blank one), unless already done."""
        ending = "".join(self.parts[-2:])
        present = len(ending) - len(ending.rstrip("\n"))
        if self.parts and present < count:
            self.parts.append("\n" * (count - present))

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(SPACES.sub(" ", data.replace("\n", " ")))


def plain_text(html: str) -> str:
    """``html`` without markup, as readable text ("" for nothing but markup)."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    lines = (line.strip() for line in "".join(parser.parts).split("\n"))
    return BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()
