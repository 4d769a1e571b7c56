"""The three benchmark families' citations for the `evaluate` metrics, read from `tasks/families.yaml`."""

from __future__ import annotations

from .tasks.families import Family, families

FAMILIES: dict[str, Family] = families()
# the file's order; a family added there must be named here too (the unpacking fails loudly until it is)
HESSEL2023, ZHANG2024, HUMORBENCH = FAMILIES.values()

__all__ = ["FAMILIES", "HESSEL2023", "HUMORBENCH", "ZHANG2024", "Family"]
