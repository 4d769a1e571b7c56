"""Token estimates and dollar cost from a per-model price table (USD per 1M tokens)."""

from __future__ import annotations

from dataclasses import dataclass

from .chat import ChatRequest
from .config import DEFAULT_PRICES

PRICE_TABLE_SOURCE = "OpenAI API list prices, https://openai.com/api/pricing/ (config.DEFAULT_PRICES)"
PRICE_TABLE_DATE = "2025-06-10"
"""Where the default price table comes from and when it was last checked against that page: a dry run prints both."""
PRICE_UNKNOWN = "price unknown"
"""What a cost reads as for a model the price table does not hold: never $0."""

CHARS_PER_TOKEN = 4.0
"""English text averages about 4 characters per token with OpenAI tokenizers: good enough for a budget."""
TOKENS_PER_MESSAGE = 4
"""Chat formatting overhead per message."""
TOKENS_PER_IMAGE = 765
"""A 512×512-tile high-detail image in gpt-4o's accounting (one tile + base); a rough allowance."""


def estimate_prompt_tokens(request: ChatRequest) -> int:
    """Rough input-token count of a request (no tokenizer needed).

    >>> estimate_prompt_tokens(ChatRequest(({"role": "user", "content": "x" * 400},), 1, 0.0))
    104
    """
    images = 0
    for message in request.messages:
        content = message.get("content")
        if isinstance(content, list):
            images += sum(1 for part in content if isinstance(part, dict) and part.get("type") == "image_url")
    chars = request.text_length()
    return round(chars / CHARS_PER_TOKEN) + TOKENS_PER_MESSAGE * len(request.messages) + TOKENS_PER_IMAGE * images


def cost_usd(prompt_tokens: int, completion_tokens: int, price: tuple[float, float] | None) -> float | None:
    """Dollar cost of a token count at ``price`` = (input, output) USD per 1M tokens; None if unknown.

    >>> cost_usd(1_000_000, 500_000, (2.5, 10.0))
    7.5
    >>> cost_usd(10, 10, None) is None
    True
    """
    if price is None:
        return None
    return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1_000_000


@dataclass(frozen=True)
class StatedPrice:
    """A judge's price in USD per 1M (input, output) tokens, with the page it was read from and the day it was
    checked (a judge configuration's ``price:``, else the default table's), so a report can say where it comes from."""

    input_usd_per_1m: float
    output_usd_per_1m: float
    source: str
    checked: str

    def pair(self) -> tuple[float, float]:
        """(input, output) USD per 1M tokens, as :func:`cost_usd` takes it."""
        return (self.input_usd_per_1m, self.output_usd_per_1m)

    def text(self) -> str:
        """`$2.50 / $10.00 per 1M tokens in / out (SOURCE, checked DATE)`."""
        when = f", checked {self.checked}" if self.checked else ""
        return (f"${self.input_usd_per_1m:.2f} / ${self.output_usd_per_1m:.2f} per 1M tokens in / out "
                f"({self.source}{when})")


def table_price(model: str) -> StatedPrice | None:
    """The default price table's price of ``model`` with its source and date; None when the table has none."""
    if model not in DEFAULT_PRICES:
        return None
    low, high = DEFAULT_PRICES[model]
    return StatedPrice(float(low), float(high), PRICE_TABLE_SOURCE, PRICE_TABLE_DATE)
