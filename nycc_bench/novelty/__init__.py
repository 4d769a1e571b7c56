"""Novelty / contamination check: do generated captions copy human submissions of the caption contest?"""

from .cli import add_novelty_parser, cmd_novelty
from .index import Settings, default_cache_dir, load_index
from .report import novelty_report
from .text import NORMALISATION, normalise

__all__ = ["NORMALISATION", "Settings", "add_novelty_parser", "cmd_novelty", "default_cache_dir", "load_index",
           "normalise", "novelty_report"]
