"""Expectation-adjusted distinct n-grams: Zhang et al.'s Average EAD per contest and Liu et al.'s corpus EAD."""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from nycc_bench.scoring.checks import check_groups, check_int

VOCAB_SIZE = 32000
MAX_N = 5
MAX_VOCAB_SIZE = 10**9  # beyond any tokenizer's vocabulary; keeps V·(1 − q^C) in float range
MAX_ORDER = 100
# The largest value EAD can take when V is a true vocabulary size (N ≤ min(C, V) distinct n-grams): the
# expectation V·(1 − ((V−1)/V)^C) is below C, so N/E exceeds 1 when nearly every n-gram is distinct, up to
# 1/(1 − 1/e) as C = V grows. A V below the number of distinct n-grams present has no such bound.
EAD_BOUND = 1 / (1 - 1 / np.e)
_CHUNK_CAPTIONS = 1 << 16


def tokenize(caption: str) -> list[str]:
    """Zhang et al.'s tokens: drop "." and newlines, split on single spaces, drop empty strings.

    Case is kept, and other punctuation stays attached to its word.

    >>> tokenize("Please remain seated, until the llama stops.")
    ['Please', 'remain', 'seated,', 'until', 'the', 'llama', 'stops']
    >>> tokenize("Wait...  what?\\nNo")
    ['Wait', 'what?No']
    """
    return [token for token in caption.replace(".", "").replace("\n", "").split(" ") if token]


def ead(n_distinct: np.ndarray | float, n_total: np.ndarray | float, vocab_size: int = VOCAB_SIZE) -> np.ndarray:
    """EAD = N / (V · (1 − ((V − 1)/V)^C)): distinct count over its expectation under a uniform vocabulary.

    C = 0 (no n-gram at all) gives 0.

    >>> round(float(ead(3, 3, vocab_size=32000)), 9)
    1.000031251
    >>> float(ead(0, 0))
    0.0
    """
    vocab_size = _check_vocab_size(vocab_size)
    n_distinct = np.asarray(n_distinct, dtype=np.float64)
    n_total = np.asarray(n_total, dtype=np.float64)
    # 1 − q^C cancels badly for small C/V, so the power must round exactly as the reference's scalar `**`
    # does: numpy's vectorised pow may differ by an ulp. Counts repeat a lot, so pow runs once per count.
    counts, where = np.unique(n_total, return_inverse=True)
    q = (vocab_size - 1) / vocab_size
    powers = np.array([q ** float(c) for c in counts], dtype=np.float64)
    expected = (vocab_size * (1 - powers))[where].reshape(n_total.shape)
    return np.divide(n_distinct, expected, out=np.zeros(np.broadcast(n_distinct, expected).shape), where=n_total > 0)


def group_eads(groups: Sequence[Sequence[str]], *, vocab_size: int = VOCAB_SIZE, max_n: int = MAX_N) -> np.ndarray:
    """Each group's EAD averaged over n = 1..max_n, with the n-grams of its captions pooled, capped at 1.

    Uncapped, N/E exceeds 1 when nearly every n-gram is distinct (the expectation is below the count), so
    random letters would score a diversity above the metric's range; no human or model group of the paper
    comes near 1, so the cap changes none of its figures.

    An n-gram is formed inside one caption (never across two); a group with no n-gram of some order
    scores 0 for that order, and that 0 counts in the mean. Groups are scored in chunks of about
    `_CHUNK_CAPTIONS` captions so that memory stays flat on large inputs.

    >>> [round(float(x), 6) for x in group_eads([["a b", "a b"], ["a"]], max_n=2)]
    [0.500016, 0.5]
    """
    groups = check_groups(groups, "groups")
    vocab_size = _check_vocab_size(vocab_size)
    max_n = check_int(max_n, "max_n", 1, MAX_ORDER)
    scores, chunk, n_captions = [], [], 0
    for group in groups:
        chunk.append(group)
        n_captions += len(group)
        if n_captions >= _CHUNK_CAPTIONS:
            scores.append(_chunk_eads(chunk, vocab_size, max_n))
            chunk, n_captions = [], 0
    if chunk:
        scores.append(_chunk_eads(chunk, vocab_size, max_n))
    return np.concatenate(scores)


def average_ead(groups: Sequence[Sequence[str]], *, vocab_size: int = VOCAB_SIZE, max_n: int = MAX_N) -> float:
    """Zhang et al.'s Average EAD: the mean over contests of `group_eads` (V = 32000, n = 1..5 by default).

    In [0, 1]: each group's value is capped at 1 (`group_eads`); Zhang et al.'s reference code lets a group whose
    n-grams are nearly all distinct score slightly above 1 (up to EAD_BOUND).

    >>> round(average_ead([["I think we should see other aquariums.", "I think we should see other aquariums."]]), 6)
    0.50007
    """
    return float(np.mean(group_eads(groups, vocab_size=vocab_size, max_n=max_n)))


def distinct_ead(groups: Sequence[Sequence[str]], *, vocab_size: int = VOCAB_SIZE) -> float:
    """Liu et al. (2022)'s original EAD: unigrams pooled over the whole corpus (every caption of every group).

    Tokens as in `tokenize`; Liu et al. count tokens of the model's own tokenizer, and V is its vocabulary
    size, so compare values only under one tokenizer and one V. Capped at 1, the score of a corpus whose
    tokens are all distinct: uncapped, N/E exceeds 1 when C ≪ V (1/(1 − 1/(2V)) for two distinct tokens).

    >>> round(distinct_ead([["a b"], ["a c"]], vocab_size=32000), 6)
    0.750035
    >>> distinct_ead([["two words"]])
    1.0
    """
    groups = check_groups(groups, "groups")
    vocab_size = _check_vocab_size(vocab_size)
    tokens = [token for group in groups for caption in group for token in tokenize(caption)]
    return min(1.0, float(ead(len(set(tokens)), len(tokens), vocab_size)))


def _chunk_eads(groups: list[list[str]], vocab_size: int, max_n: int) -> np.ndarray:
    """`group_eads` of already checked groups, vectorised: n-grams become integer ids, sorted once per order."""
    n_groups = len(groups)
    caption_group = np.repeat(np.arange(n_groups), [len(g) for g in groups])
    tokens, caption = _token_ids(groups)
    lengths = np.bincount(caption, minlength=len(caption_group))
    token_group = caption_group[caption]
    # tokens left in the caption from each token on, itself included
    remaining = np.cumsum(lengths)[caption] - np.arange(len(tokens))

    # Order 1: sort the (group, token) pairs; `unigram` numbers the distinct pairs densely.
    order, first, repeated = _sorted_runs(token_group * (int(tokens.max(initial=0)) + 1) + tokens)
    n_total = np.bincount(caption_group, weights=lengths, minlength=n_groups)
    scores = ead(np.bincount(token_group[order][first], minlength=n_groups), n_total, vocab_size)
    unigram = np.empty_like(tokens)
    unigram[order] = np.cumsum(first) - 1
    n_unigrams = int(first.sum())
    # Only a start whose (n−1)-gram occurs twice or more in its group can begin a repeated n-gram: any other
    # start with room for n tokens begins an n-gram unique in its group. So each order sorts only the
    # repeated starts of the previous one, identified by the dense id (`prefix`) of their (n−1)-gram.
    starts, prefix = order[repeated], (np.cumsum(first) - 1)[repeated]
    for n in range(2, max_n + 1):
        n_total = np.bincount(caption_group, weights=np.maximum(lengths - n + 1, 0), minlength=n_groups)
        room = remaining[starts] >= n
        starts, prefix = starts[room], prefix[room]
        order, first, repeated = _sorted_runs(prefix * n_unigrams + unigram[starts + n - 1])
        group = token_group[starts]
        n_distinct = (
            n_total - np.bincount(group, minlength=n_groups) + np.bincount(group[order][first], minlength=n_groups)
        )
        scores += ead(n_distinct, n_total, vocab_size)
        starts, prefix = starts[order][repeated], (np.cumsum(first) - 1)[repeated]
    return np.minimum(scores / max_n, 1.0)  # a group whose n-grams are all distinct scores 1, never more


def _token_ids(groups: list[list[str]]) -> tuple[np.ndarray, np.ndarray]:
    """(token ids, caption index of each token) of all captions, tokenized exactly as `tokenize`.

    The captions are joined with a character none of them contains, cleaned and split once at C speed;
    ids are handed out on first sight in the same C-level pass, then separators and empty strings dropped.
    """
    captions = [caption for group in groups for caption in group]
    for separator in map(chr, itertools.count()):
        joined = separator.join(captions)
        if separator not in ".\n" and joined.count(separator) == len(captions) - 1:
            break
    pieces = joined.replace(".", "").replace("\n", "").replace(separator, f" {separator} ").split(" ")
    index: defaultdict[str, int] = defaultdict(itertools.count().__next__)
    ids = np.fromiter(map(index.__getitem__, pieces), dtype=np.int64, count=len(pieces))
    is_separator = ids == index[separator]
    caption = np.cumsum(is_separator)  # separators before a piece = index of its caption
    keep = ~is_separator & (ids != index[""])  # "" gets an id here if no piece was empty: harmless
    return ids[keep], caption[keep]


def _sorted_runs(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(order, first, repeated) for sorted keys: the stable sort order, whether each sorted key starts a run
    of equal keys, and whether its run holds two or more keys."""
    order = np.argsort(keys, kind="stable")
    if len(keys) == 0:
        return order, np.zeros(0, dtype=bool), np.zeros(0, dtype=bool)
    ordered = keys[order]
    change = ordered[1:] != ordered[:-1]
    first = np.concatenate([[True], change])
    last = np.concatenate([change, [True]])
    return order, first, ~(first & last)


def _check_vocab_size(vocab_size: int) -> int:
    return check_int(vocab_size, "vocab_size", 2, MAX_VOCAB_SIZE)
