"""Tests for calendar_rest.cost: TEC-compatible ``cost`` and ``cost_details``."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import pytest

from calendar_rest.wordpress.cost import (
    CostInfo,
    cost_details,
    cost_representation,
    format_cost,
    infer_currency,
    normalise_cost_input,
    parse_numbers,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, ()),
        ("", ()),
        ("   ", ()),
        ([], ()),
        ((), ()),
        ("15", ("15",)),
        ("  15  ", ("15",)),
        ("25-40", ("25-40",)),
        (15, ("15",)),
        (0, ("0",)),
        (15.0, ("15",)),
        (12.5, ("12.5",)),
        (0.1, ("0.1",)),
        (1e20, ("100000000000000000000",)),
        (1e-7, ("0.0000001",)),
        (Decimal("12.50"), ("12.5",)),
        (["0$", "20$", "30$"], ("0$", "20$", "30$")),
        ([" 10 ", 20, 2.5, "", None, "  "], ("10", "20", "2.5")),
        (("a", "b"), ("a", "b")),
    ],
)
def test_normalise_cost_input(raw: object, expected: tuple[str, ...]) -> None:
    assert normalise_cost_input(raw) == expected


@pytest.mark.parametrize("raw", [True, False, {"a": 1}, [["nested"]], [True], object()])
def test_normalise_cost_input_rejects_other_types(raw: object) -> None:
    with pytest.raises(TypeError):
        normalise_cost_input(raw)


@pytest.mark.parametrize("raw", [float("nan"), float("inf"), [float("-inf")], Decimal("NaN")])
def test_normalise_cost_input_rejects_non_finite(raw: object) -> None:
    with pytest.raises(ValueError):
        normalise_cost_input(raw)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (("$10",), ("$", "prefix")),
        (("10 €",), ("€", "postfix")),
        (("USD 10",), ("USD", "prefix")),
        (("20$",), ("$", "postfix")),
        (("$2",), ("$", "prefix")),
        (("$ 2",), ("$", "prefix")),
        (("2 $",), ("$", "postfix")),
        (("0$", "20$", "30$"), ("$", "postfix")),
        (("$25 – $40",), ("$", "prefix")),
        (("$25-40",), ("$", "prefix")),
        (("25 € - 40 €",), ("€", "postfix")),
        (("Rs.10",), ("Rs.", "prefix")),
        (("$1,234.50",), ("$", "prefix")),
        # Pure numbers carry no currency.
        (("15",), ("", "")),
        (("25-40",), ("", "")),
        (("0", "20"), ("", "")),
        # Inconsistent or missing currency.
        (("20¥", "30$"), ("", "")),
        (("$20", "20$"), ("", "")),
        (("0", "20$"), ("", "")),
        (("free", "20$", "30$"), ("", "")),
        (("Donation",), ("", "")),
        (("foo bar",), ("", "")),
        (("$10 USD",), ("", "")),
        (("Tickets from 10",), ("", "")),
        (("10 adults 5 kids",), ("", "")),
        ((), ("", "")),
    ],
)
def test_infer_currency(values: tuple[str, ...], expected: tuple[str, str]) -> None:
    assert infer_currency(values) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("15", ["15"]),
        ("1,234.50", ["1234.50"]),
        ("1.234,50", ["1234.50"]),
        ("1,234,567", ["1234567"]),
        ("1,234,567.89", ["1234567.89"]),
        ("1,234", ["1234"]),
        ("12,50", ["12.50"]),
        ("12,5", ["12.5"]),
        ("12.50", ["12.50"]),
        ("25-40", ["25", "40"]),
        ("$25 – $40", ["25", "40"]),
        ("10 - 20", ["10", "20"]),
        ("10, 20, 30", ["10", "20", "30"]),
        ("10,20,30", ["10", "20", "30"]),
        ("$.50", ["0.50"]),
        ("Rs.10", ["10"]),
        ("-5", ["5"]),
        ("Donation", []),
        ("", []),
    ],
)
def test_parse_numbers(value: str, expected: list[str]) -> None:
    assert parse_numbers(value) == [Decimal(number) for number in expected]


def test_parse_numbers_returns_decimals() -> None:
    assert all(isinstance(number, Decimal) for number in parse_numbers("$1.5 - $2"))


@pytest.mark.parametrize(
    ("values", "symbol", "position", "expected_values"),
    [
        (("15",), "", "", ["15"]),
        (("25-40",), "", "", ["25", "40"]),
        (("0$", "20$", "30$"), "$", "postfix", ["0", "20", "30"]),
        (("0",), "", "", ["0"]),
        (("Donation",), "", "", ["donation"]),
        (("Free",), "", "", ["free"]),
        (("12.50",), "", "", ["12.5"]),
        (("40", "15", "25-40", "12.50"), "", "", ["12.5", "15", "25", "40"]),
        (("15.00",), "", "", ["15"]),
        (("1,234.50",), "", "", ["1234.5"]),
        (("Free", "$10"), "", "", ["10"]),
        (("Free", "Donation", "free"), "", "", ["free", "donation"]),
        (("Pay What You Can!",), "", "", ["pay-what-you-can"]),
        (("無料",), "", "", ["無料"]),
        ((), "", "", []),
    ],
)
def test_cost_details_values(
    values: tuple[str, ...], symbol: str, position: str, expected_values: list[str]
) -> None:
    assert cost_details(values, symbol, position)["values"] == expected_values


def test_cost_details_shape_and_key_order() -> None:
    details = cost_details(("20$",), "$", "postfix")
    assert details == {
        "currency_symbol": "$",
        "currency_code": "",
        "currency_position": "postfix",
        "values": ["20"],
    }
    assert list(details) == ["currency_symbol", "currency_code", "currency_position", "values"]


@pytest.mark.parametrize(
    ("values", "symbol", "position", "expected"),
    [
        # Real captures (site default "$", prefix).
        (("15",), "", "", "$15"),
        (("25-40",), "", "", "$25 – $40"),
        # TEC test cases.
        (("23",), "$", "prefix", "$23"),
        (("20$",), "$", "postfix", "20$"),
        (("0$", "20$", "30$"), "$", "postfix", "Free – 30$"),
        (("0",), "", "", "Free"),
        (("Donation",), "", "", "Donation"),
        (("Free",), "", "", "Free"),
        # Edge cases.
        ((), "", "", ""),
        ((), "$", "prefix", ""),
        (("0", "0.00"), "", "", "Free"),
        (("10", "10.00"), "", "", "$10"),
        (("12.50",), "", "", "$12.50"),
        (("12,50",), "€", "postfix", "12,50€"),
        (("12.5",), "", "", "$12.5"),
        (("15.00",), "", "", "$15"),
        (("1,234.00",), "", "", "$1,234"),
        (("$12.555",), "$", "prefix", "$12.56"),
        (("$.50",), "$", "prefix", "$0.50"),
        (("10 €",), "€", "postfix", "10€"),
        (("USD 10",), "USD", "prefix", "USD10"),
        (("40", "15", "25-40"), "", "", "$15 – $40"),
        (("Free", "$10"), "", "", "$10"),
        (("Free", "Donation"), "", "", "Free, Donation"),
        (("  Donation  ",), "", "", "  Donation  "),
        (("25-40",), "", "postfix", "25$ – 40$"),
        (("5",), "", "", "$5"),
    ],
)
def test_format_cost(values: tuple[str, ...], symbol: str, position: str, expected: str) -> None:
    assert format_cost(values, symbol, position) == expected


@pytest.mark.parametrize(
    ("values", "symbol", "position", "default_symbol", "expected"),
    [
        (("15",), "", "", "€", "€15"),
        (("15",), "", "postfix", "€", "15€"),
        (("15",), "£", "prefix", "€", "£15"),
        (("0", "15"), "", "", "", "Free – 15"),
    ],
)
def test_format_cost_default_symbol(
    values: tuple[str, ...], symbol: str, position: str, default_symbol: str, expected: str
) -> None:
    assert format_cost(values, symbol, position, default_symbol=default_symbol) == expected


@pytest.mark.parametrize(
    ("raw", "expected_cost", "expected_details"),
    [
        ("15", "$15", {"currency_symbol": "", "currency_code": "", "currency_position": "",
                       "values": ["15"]}),
        ("25-40", "$25 – $40", {"currency_symbol": "", "currency_code": "",
                                "currency_position": "", "values": ["25", "40"]}),
        ("20$", "20$", {"currency_symbol": "$", "currency_code": "",
                        "currency_position": "postfix", "values": ["20"]}),
        (["0$", "20$", "30$"], "Free – 30$", {"currency_symbol": "$", "currency_code": "",
                                              "currency_position": "postfix",
                                              "values": ["0", "20", "30"]}),
        ("0", "Free", {"currency_symbol": "", "currency_code": "", "currency_position": "",
                       "values": ["0"]}),
        ("Donation", "Donation", {"currency_symbol": "", "currency_code": "",
                                  "currency_position": "", "values": ["donation"]}),
        ("Free", "Free", {"currency_symbol": "", "currency_code": "", "currency_position": "",
                          "values": ["free"]}),
        (None, "", {"currency_symbol": "", "currency_code": "", "currency_position": "",
                    "values": []}),
        ([15, 25.0], "$15 – $25", {"currency_symbol": "", "currency_code": "",
                                   "currency_position": "", "values": ["15", "25"]}),
    ],
)  # fmt: skip
def test_end_to_end_from_client_input(
    raw: object, expected_cost: str, expected_details: dict[str, object]
) -> None:
    info = CostInfo.from_input(raw)
    cost, details = cost_representation(info)
    assert cost == expected_cost
    assert details == expected_details


def test_cost_representation_matches_parts() -> None:
    values, symbol, position = ("$25 – $40",), "$", "prefix"
    assert cost_representation(CostInfo(values, symbol, position), default_symbol="€") == (
        format_cost(values, symbol, position, default_symbol="€"),
        cost_details(values, symbol, position),
    )


def test_cost_info_is_frozen_and_built_from_input() -> None:
    info = CostInfo.from_input(["0$", "20$"])
    assert info == CostInfo(values=("0$", "20$"), symbol="$", position="postfix")
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.symbol = "€"  # type: ignore[misc]
