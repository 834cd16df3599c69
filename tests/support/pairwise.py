"""All-pairs (pairwise) combinations of options, for the option tests.

A table of options, each with a few values, and the refusal rules (which combinations
must be refused, naming which options) generate:

* ``rows``: combinations that must work, covering every allowed pair of (option, value)
  at least once (greedy covering array: each row sets many options at once);
* ``refused``: every pair of (option, value) that a rule refuses, to be run on its own.

The same rules are the ones the user guide lists; a combination the code refuses that the
rules allow (or the reverse) fails the test that runs it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

Row = dict[str, Any]
Rule = Callable[[Row], "Sequence[str] | None"]


def refusal(rules: Sequence[Rule], row: Row) -> list[Sequence[str]]:
    """The option names of every rule that refuses ``row`` (empty: it must work). A
    refusal message must name the options of at least one of them."""
    return [names for names in (rule(row) for rule in rules) if names]


def names_one(firing: Sequence[Sequence[str]], message: str) -> bool:
    """Does ``message`` name every option of at least one firing rule?"""
    return any(all(name in message for name in names) for names in firing)


def pairs(options: Mapping[str, Sequence[Any]]) -> list[Row]:
    return [{a: va, b: vb}
            for a, b in itertools.combinations(options, 2)
            for va in options[a] for vb in options[b]]


def covering_rows(options: Mapping[str, Sequence[Any]], rules: Sequence[Rule],
                  ) -> tuple[list[Row], list[tuple[Row, list[Sequence[str]]]]]:
    """(rows that must work, covering every allowed pair; refused pairs with the rules
    that refuse them). Every single value also appears in some row or pair."""
    rows: list[Row] = []
    refused: list[tuple[Row, list[Sequence[str]]]] = []
    for pair in pairs(options):
        names = refusal(rules, pair)
        if names:
            refused.append((pair, names))
            continue
        if any(all(row.get(k, _MISSING) == v for k, v in pair.items()) for row in rows):
            continue
        for row in rows:
            if all(row.get(k, v) == v for k, v in pair.items()) and \
                    not refusal(rules, {**row, **pair}):
                row.update(pair)
                break
        else:
            rows.append(dict(pair))
    return rows, refused


_MISSING = object()
