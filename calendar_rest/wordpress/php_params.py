"""Query strings and forms read as PHP reads them, and WordPress after it.

PHP builds arrays from brackets: ``a[]=1&a[]=2`` is a list, ``a[0]=x`` one too,
``venue[city]=Lyon`` an object and ``organizer[0][organizer]=Trio`` a list of objects.
A repeated plain key keeps its last value there; here, for the parameters that take
a list (``repeatable``), the values of every form are united instead, and each is
read as a comma list, so ``categories=a&categories=b``, ``categories[]=a&categories[]=b``
and ``categories=a,b`` all mean the same two categories (what generated clients send).
"""

from __future__ import annotations

import re
import typing as t

Params = dict[str, t.Any]
#: ``name[key][key]...``: the name, then each bracketed key
BRACKETS = re.compile(r"\[([^\[\]]*)\]")
#: containers deeper than this are not built (PHP's ``max_input_nesting_level``)
MAX_DEPTH = 64


def php_params(pairs: t.Iterable[tuple[str, str]], repeatable: t.Container[str]) -> Params:
    """The parameters of ``pairs`` (name, value), in PHP's shapes."""
    params: Params = {}
    for key, value in pairs:
        name, path = _split(key)
        if not name:
            continue
        if name in repeatable:
            _unite(params, name, value, path)
        elif path:
            _insert(params, name, path, value)
        else:
            params[name] = value
    return {name: _listed(value) for name, value in params.items()}


def _split(key: str) -> tuple[str, list[str]]:
    """``a[b][]`` → ``("a", ["b", ""])``; a key with a stray bracket is a plain name."""
    start = key.find("[")
    if start <= 0 or not key.endswith("]"):
        return key, []
    rest = key[start:]
    keys = BRACKETS.findall(rest)
    if "".join(f"[{part}]" for part in keys) != rest or len(keys) > MAX_DEPTH:
        return key, []
    return key[:start], keys


def _unite(params: Params, name: str, value: str, path: list[str]) -> None:
    """A list parameter: plain values and ``[]``/``[N]`` values join one list; a deeper
    path (``organizer[0][organizer]``) builds objects, as PHP does."""
    if len(path) > 1:
        _insert(params, name, path, value)
        return
    current = params.get(name)
    if isinstance(current, dict):  # objects built already: keep them, add this one
        current[str(len(current))] = value
        return
    items = current if isinstance(current, list) else []
    params[name] = [*items, *(part.strip() for part in value.split(",") if part.strip())]


def _insert(params: Params, name: str, path: list[str], value: str) -> None:
    node: dict[str, t.Any] = params
    key = name
    for part in path:
        child = node.get(key)
        if not isinstance(child, dict):
            child = {} if not isinstance(child, list) else dict(_numbered(child))
            node[key] = child
        node, key = child, part if part != "" else str(_next_index(child))
    node[key] = value


def _numbered(items: list[t.Any]) -> t.Iterator[tuple[str, t.Any]]:
    return ((str(index), item) for index, item in enumerate(items))


def _next_index(node: dict[str, t.Any]) -> int:
    """PHP's next array index: one more than the largest integer key, else 0."""
    numbers = [int(key) for key in node if key.isdigit()]
    return max(numbers) + 1 if numbers else 0


def _listed(value: t.Any) -> t.Any:
    """Objects whose keys are all integers become lists (in key order), as WordPress
    sends a PHP list to JSON."""
    if isinstance(value, list):
        return [_listed(item) for item in value]
    if not isinstance(value, dict):
        return value
    members = {key: _listed(item) for key, item in value.items()}
    if members and all(key.isdigit() for key in members):
        return [members[key] for key in sorted(members, key=int)]
    return members
