"""Event cost handling compatible with TEC's ``cost`` / ``cost_details`` REST fields.

TEC keeps the cost strings exactly as a client sent them and derives everything else
(display string, numeric values, currency symbol and position) from those strings, so we
store the raw strings too and recompute the representation on every read.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import NamedTuple

from calendar_rest.i18n.messages import N_
from calendar_rest.wordpress.text import slugify

__all__ = [
    "CostInfo",
    "cost_details",
    "cost_representation",
    "format_cost",
    "infer_currency",
    "normalise_cost_input",
    "parse_numbers",
]

PREFIX = "prefix"
POSTFIX = "postfix"
#: shown for a zero price, translated into the request's language by the caller
FREE_LABEL = N_("Free")
RANGE_SEPARATOR = " \u2013 "  # space, EN DASH, space: what TEC puts between min and max

# A run of digits joined by "." or ",", or a bare ".50" that is not glued to a word ("Rs.10").
_NUMBER_TOKEN = re.compile(r"(?<![\w.])\.\d+|\d+(?:[.,]\d+)*")
# Characters allowed between the numbers of a range such as "$25 – $40" or "25 € - 40 €".
_RANGE_FILLER = re.compile(r"[\s\-\u2010-\u2015\u2212~]+")
_TWO_PLACES = Decimal("0.01")


class _Number(NamedTuple):
    """A number found in a cost string plus enough of its text to echo it back unchanged."""

    value: Decimal
    text: str  # as written, e.g. "1,234.50" or "12,50"
    int_text: str  # the text before the decimal separator, e.g. "1,234"


@dataclass(frozen=True)
class CostInfo:
    """The stored cost of an event: raw strings as sent plus the inferred currency."""

    values: tuple[str, ...]
    symbol: str
    position: str

    @classmethod
    def from_input(cls, raw: object) -> CostInfo:
        """Normalise a client's ``cost`` payload and infer its currency in one step."""
        values = normalise_cost_input(raw)
        symbol, position = infer_currency(values)
        return cls(values=values, symbol=symbol, position=position)


def _number_to_text(number: int | float | Decimal) -> str:
    """Render a JSON number as a cost string without float noise ("15.0" -> "15", no "1e+20")."""
    if isinstance(number, float):
        if not math.isfinite(number):
            raise ValueError("cost must be a finite number")
        if number.is_integer():
            return str(int(number))
        number = Decimal(repr(number))
    if isinstance(number, Decimal):
        if not number.is_finite():
            raise ValueError("cost must be a finite number")
        return format(number.normalize(), "f")
    return str(number)


def _scalar_to_text(item: object) -> str:
    """Turn one scalar of a cost payload into a stripped string ("" for None)."""
    if item is None:
        return ""
    if isinstance(item, str):
        return item.strip()
    # bool is an int subclass but "true" is never a meaningful cost.
    if isinstance(item, (int, float, Decimal)) and not isinstance(item, bool):
        return _number_to_text(item)
    raise TypeError(f"unsupported cost value type: {type(item).__name__}")


def normalise_cost_input(raw: object) -> tuple[str, ...]:
    """Accept a string, a number or a list of those and return the non-empty stripped strings.

    Raises ``TypeError`` for anything else (booleans, objects, nested lists) and ``ValueError``
    for NaN/infinity so the caller can answer 400 instead of storing junk.
    """
    items = list(raw) if isinstance(raw, (list, tuple)) else [raw]
    texts = (_scalar_to_text(item) for item in items)
    return tuple(text for text in texts if text)


def _split_plain(token: str, separators: list[str]) -> list[_Number] | None:
    """Interpret a token using a single kind of separator, or ``None`` if it is a list."""
    sep = separators[0]
    parts = token.split(sep)
    if len(parts) == 2:
        # "1,234" is a thousands group; "12,50" / "12.5" / "1.234" use a decimal separator.
        if sep == "," and len(parts[1]) == 3:
            return [_Number(Decimal("".join(parts)), token, token)]
        return [_Number(Decimal(".".join(parts)), token, parts[0])]
    if _looks_grouped(parts):
        return [_Number(Decimal("".join(parts)), token, token)]
    return None


def _looks_grouped(parts: list[str]) -> bool:
    """True for thousands groups: 1-3 leading digits then groups of exactly three."""
    return 1 <= len(parts[0]) <= 3 and all(len(part) == 3 for part in parts[1:])


def _interpret_token(token: str) -> list[_Number]:
    """Decide which separator in a token is decimal and which groups thousands."""
    if token.startswith("."):
        return [_Number(Decimal("0" + token), "0" + token, "0")]
    separators = re.findall(r"[.,]", token)
    if not separators:
        return [_Number(Decimal(token), token, token)]
    if len(set(separators)) == 1:
        numbers = _split_plain(token, separators)
    else:
        # Mixed separators: the last one is decimal, the other kind groups thousands.
        decimal_sep = separators[-1]
        int_text, _, fraction = token.rpartition(decimal_sep)
        grouped = int_text.split("," if decimal_sep == "." else ".")
        numbers = None
        if decimal_sep not in int_text and _looks_grouped(grouped):
            numbers = [_Number(Decimal("".join(grouped) + "." + fraction), token, int_text)]
    if numbers is None:
        # Not a well-formed number, e.g. "10,20,30": read it as a list of integers.
        numbers = [_Number(Decimal(part), part, part) for part in re.split(r"[.,]", token)]
    return numbers


def _find_numbers(value: str) -> list[_Number]:
    """Every number in a cost string, in order of appearance."""
    numbers: list[_Number] = []
    for match in _NUMBER_TOKEN.finditer(value):
        numbers.extend(_interpret_token(match.group()))
    return numbers


def parse_numbers(value: str) -> list[Decimal]:
    """Every number in a cost string; "-" and dashes are range separators, never minus signs."""
    return [number.value for number in _find_numbers(value)]


def _value_currency(value: str) -> tuple[str, str] | None:
    """The (symbol, position) one cost string implies, or ``None`` if it implies none."""
    spans = [match.span() for match in _NUMBER_TOKEN.finditer(value)]
    if not spans:
        return None
    before = value[: spans[0][0]].strip()
    after = value[spans[-1][1] :].strip()
    if before and after:
        return None
    symbol = before or after
    if not symbol:
        return ("", "")
    if any(ch.isspace() for ch in symbol):
        return None  # words such as "Tickets from 10" are not a currency symbol
    for (_, end), (start, _) in zip(spans, spans[1:], strict=False):
        between = _RANGE_FILLER.sub("", value[end:start])
        if between not in ("", symbol):
            return None
    return (symbol, PREFIX if before else POSTFIX)


def infer_currency(values: tuple[str, ...]) -> tuple[str, str]:
    """Infer ``(symbol, position)`` from stored cost strings, or ``("", "")`` when unclear.

    "$10" -> ("$", "prefix"), "10 €" -> ("€", "postfix"). All values must agree and each must
    contain a number; otherwise the display falls back to the site's default symbol.
    """
    found = {_value_currency(value) for value in values}
    if len(found) != 1:
        return ("", "")
    currency = found.pop()
    return currency if currency is not None else ("", "")


def _plain(value: Decimal) -> str:
    """A Decimal without exponent or trailing zeros: 12.50 -> "12.5", 100 -> "100"."""
    return format(value.normalize(), "f")


def _non_numeric_labels(values: tuple[str, ...]) -> list[str]:
    """Slugged forms of number-less costs ("Donation" -> "donation"), deduplicated in order."""
    labels: list[str] = []
    for value in values:
        label = slugify(value) or value.strip().lower()
        if label and label not in labels:
            labels.append(label)
    return labels


def cost_details(values: tuple[str, ...], symbol: str, position: str) -> dict[str, object]:
    """Build TEC's ``cost_details`` object; key order matters because clients diff the JSON."""
    numbers = sorted({number.value for value in values for number in _find_numbers(value)})
    detail_values = [_plain(number) for number in numbers] or _non_numeric_labels(values)
    return {
        "currency_symbol": symbol,
        "currency_code": "",
        "currency_position": position,
        "values": detail_values,
    }


def _render_number(number: _Number) -> str:
    """Echo the number as the client wrote it, but without ".00" and with at most 2 decimals."""
    if number.value == number.value.to_integral_value():
        return number.int_text
    if len(number.text) - len(number.int_text) - 1 <= 2:
        return number.text
    return _plain(number.value.quantize(_TWO_PLACES, rounding=ROUND_HALF_UP))


def _with_currency(number: _Number, symbol: str, position: str, free_label: str) -> str:
    """Attach the symbol on the configured side; zero is shown as "Free" like TEC."""
    if number.value == 0:
        return free_label
    text = _render_number(number)
    return text + symbol if position == POSTFIX else symbol + text


def format_cost(
    values: tuple[str, ...],
    symbol: str,
    position: str,
    default_symbol: str = "$",
    free_label: str = FREE_LABEL,
) -> str:
    """The human ``cost`` string: "$15", "$25 – $40", "Free – 30$" or a text cost as-is."""
    numbers = [number for value in values for number in _find_numbers(value)]
    if not numbers:
        return ", ".join(values)
    lowest = min(numbers, key=lambda number: number.value)
    highest = max(numbers, key=lambda number: number.value)
    symbol = symbol or default_symbol
    low = _with_currency(lowest, symbol, position, free_label)
    if lowest.value == highest.value:
        return low
    return low + RANGE_SEPARATOR + _with_currency(highest, symbol, position, free_label)


@functools.lru_cache(maxsize=1024)
def cost_representation(
    cost: CostInfo, default_symbol: str = "$", free_label: str = FREE_LABEL
) -> tuple[str, dict[str, object]]:
    """Both REST fields of a stored cost at once: ``(cost, cost_details)``. Worked out
    once per distinct cost (sites repeat a handful of prices): the ``cost_details``
    returned is shared, and nothing may change it."""
    return (
        format_cost(cost.values, cost.symbol, cost.position, default_symbol, free_label),
        cost_details(cost.values, cost.symbol, cost.position),
    )
