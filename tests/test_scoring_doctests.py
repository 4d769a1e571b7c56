"""The docstring examples of every scoring module run and pass."""

import doctest
import importlib
import pkgutil

import pytest

import nycc_bench.scoring

MODULES = sorted(m.name for m in pkgutil.iter_modules(nycc_bench.scoring.__path__, "nycc_bench.scoring."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
