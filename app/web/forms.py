"""One way to read the numbers people type into forms and addresses.

A number is written in ASCII digits: `str.isdigit()` also takes `²`, `①` and `٣`, which
`int()` then refuses or reads as a number nobody typed. Each number has bounds that fit where
it goes: ids and counts are stored as 32-bit integers, so a larger one names nothing and never
reaches SQL (PostgreSQL refuses it, SQLite does not).
"""

import re
from typing import Annotated

from pydantic import Field

INT32_MAX = 2_147_483_647
_WHOLE = re.compile(r"[0-9]{1,18}")  # [0-9], not \d: ASCII digits only
_DECIMAL = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,9})?")

# A row's id in an address or a JSON body: pydantic reads ASCII digits only; the bounds fit.
RowId = Annotated[int, Field(ge=1, le=INT32_MAX)]


def whole_number(text: str | None, low: int = 0, high: int = INT32_MAX) -> int | None:
    """Read text (spaces around it allowed) as a whole number from low to high, or None."""
    text = (text or "").strip()
    if not _WHOLE.fullmatch(text):
        return None
    value = int(text)
    return value if low <= value <= high else None


def whole_numbers(values: list[str], low: int = 1, high: int = INT32_MAX) -> list[int] | None:
    """Read every value as a whole number from low to high, or None if one is not."""
    numbers = []
    for value in values:
        number = whole_number(value, low, high)
        if number is None:
            return None
        numbers.append(number)
    return numbers


def decimal_number(text: str | None, low: float, high: float) -> float | None:
    """Read text such as `1.25` as a number from low to high, or None."""
    text = (text or "").strip()
    if not _DECIMAL.fullmatch(text):
        return None
    value = float(text)
    return value if low <= value <= high else None
