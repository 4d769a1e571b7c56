"""A dataset card's file without `huggingface_hub` (its import was a tenth of a small build's CPU): the YAML block
as `DatasetCardData.to_yaml` writes it (`yaml.dump`, keys in the order given, Unicode kept) and read back as
`DatasetCard.load` reads it. `tests/test_feature_types.py` checks both against `huggingface_hub`'s own."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

# huggingface_hub.repocard.REGEX_YAML_BLOCK: the `---` block at the top of a card
YAML_BLOCK = re.compile(r"^(\s*---(?:\r\n|\r|\n))([\S\s]*?)((?:\r\n|\r|\n)---[ \t]*(\r\n|\n|$))")


def card_text(data: dict[str, Any], body: str) -> str:
    """The card: its metadata (None values left out, as the Hub's card classes do) in a YAML block, then the body."""
    block = yaml.dump({k: v for k, v in data.items() if v is not None}, allow_unicode=True, sort_keys=False)
    return f"---\n{block.strip()}\n---\n{body}"


def card_data(path: Path) -> dict[str, Any]:
    """A card file's metadata (empty when it has no YAML block); raises when the block is not a YAML mapping."""
    with Path(path).open(newline="", encoding="utf-8-sig") as f:
        text = f.read()
    match = YAML_BLOCK.search(text)
    data = yaml.safe_load(match.group(2)) if match else None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f"the YAML block is a {type(data).__name__}, not a mapping")
    return {k: v for k, v in data.items() if v is not None}
