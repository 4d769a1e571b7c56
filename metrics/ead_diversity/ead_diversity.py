"""Zhang et al. (2024) caption-group diversity: Average EAD (token level) and SBERT (semantic level).

The Space face of `nycc_bench.metrics.ead_diversity` (generated from it: do not edit; regenerate with
`python -m nycc_bench.metrics._faces`). The rule and the class live in the package; this file carries evaluate's
conventions: this docstring, `_KWARGS_DESCRIPTION` with examples that run through `evaluate.load`, and the class
they document.
"""

import evaluate

import nycc_bench.metrics.ead_diversity as package

_DESCRIPTION = package._DESCRIPTION
_CITATION = package._CITATION

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `list` of `str`): one group of captions per contest. A missing caption
        (None) is an error: the reference code read it as the text "nan".
    vocab_size (`int`, default 32000): V in the EAD formula (2..1e9).
    max_n (`int`, default 5): EAD averages n = 1..max_n (1..100).
    sbert_model (`str`, optional): a sentence-transformers Hub id or local folder; adds `sbert_diversity`.
        "all-MiniLM-L6-v2" and "all-mpnet-base-v2" resolve to the offline PyPI packages when installed.
    sbert_include_diagonal (`bool`, default True): the paper's full-matrix mean; False averages distinct
        pairs only (needs 2+ captions per group).
    sbert_batch_size (`int`, default 64), sbert_device (`str`, optional): encoding settings.
Returns:
    average_ead (`float`, in [0, 1]), distinct_ead (`float`, in [0, 1]), n_groups (`int`), and with
    `sbert_model` sbert_diversity (`float`, in [0, 1] for the diagonal variant) with sbert_ci_low and
    sbert_ci_high (95% percentile bootstrap over contests, 1000 resamples, seed 0).
Raises:
    ValueError (`nycc_bench.errors.NyccBenchError`), naming the argument: an empty group, a missing caption,
        no group at all, text that is not valid Unicode, a bad vocab_size, max_n or SBERT setting, an
        argument the metric does not take.
Examples:
    >>> import evaluate
    >>> ead = evaluate.load("ead_diversity")  # the Space: evaluate.load("nycc-bench/ead_diversity")
    >>> result = ead.compute(predictions=[
    ...     ["Please remain seated until the llama stops.", "I think we should see other aquariums."],
    ...     ["The brochure said it was cozy.", "The brochure said it was cozy."],
    ... ])
    >>> round(result["average_ead"], 6), round(result["distinct_ead"], 6), result["n_groups"]
    (0.750027, 0.769531, 2)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class EadDiversity(package.EadDiversity):
    """Average EAD and SBERT diversity; the rules live in `nycc_bench.scoring.ead` and `.sbert`."""

    def _info(self):
        info = super()._info()
        info.inputs_description = _KWARGS_DESCRIPTION
        return info
