"""``_fields``: answering only the fields a client names (WordPress's global parameter,
``rest_filter_response_fields``).

Names are top-level keys or dotted paths into objects (``venue.id``); a path into a
list of objects applies to each of them. Unknown names are ignored. ``_links`` stays
whenever the record has it, so clients that follow links keep working (WordPress
drops it unless named). In a list body, each record under the list key is reduced and
the paging keys stay.
"""

from __future__ import annotations

import typing as t

from ..wordpress.php_params import php_params

#: a requested path as a tree: True keeps the whole value, a dict keeps some members
Wanted = dict[str, "Wanted | bool"]


def requested_fields(query: t.Iterable[tuple[str, str]]) -> list[str]:
    """The names ``_fields`` lists in a query: comma lists, ``_fields[]=``,
    ``_fields[0]=`` and repeated keys alike."""
    pairs = [(key, value) for key, value in query if key.startswith("_fields")]
    names = php_params(pairs, {"_fields"}).get("_fields", [])
    return names if isinstance(names, list) else []


def only_fields(body: t.Any, names: t.Sequence[str], list_key: str | None = None) -> t.Any:
    """``body`` reduced to the fields ``names`` lists; for a list body, the records
    under ``list_key`` (``events``...) are reduced, the paging keys kept."""
    wanted = _tree(names)
    if list_key is not None and isinstance(body, dict) and isinstance(body.get(list_key), list):
        return {**body, list_key: [_pick(item, wanted, top=True) for item in body[list_key]]}
    return _pick(body, wanted, top=True)


def _tree(names: t.Sequence[str]) -> Wanted:
    tree: Wanted = {}
    for name in names:
        *parents, last = name.split(".")
        node = tree
        for part in parents:
            child = node.setdefault(part, {})
            if child is True:  # the whole parent is kept already
                break
            assert isinstance(child, dict)
            node = child
        else:
            node[last] = True
    return tree


def _pick(value: t.Any, wanted: Wanted, *, top: bool = False) -> t.Any:
    if isinstance(value, list):
        return [_pick(item, wanted) for item in value]
    if not isinstance(value, dict):
        return value
    picked = {}
    for key, member in value.items():
        branch = wanted.get(key)
        if branch is True or (top and key == "_links"):
            picked[key] = member
        elif isinstance(branch, dict):
            picked[key] = _pick(member, branch)
    return picked
