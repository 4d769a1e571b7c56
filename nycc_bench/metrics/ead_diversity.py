"""Zhang et al. (2024) caption-group diversity: Average EAD (token level) and SBERT (semantic level)."""

import datasets
import evaluate

from nycc_bench.citations import ZHANG2024
from nycc_bench.errors import NyccBenchError
from nycc_bench.metrics import rules
from nycc_bench.metrics._support import check_add_call, check_compute_call
from nycc_bench.scoring.checks import check_groups
from nycc_bench.scoring.ead import MAX_N, VOCAB_SIZE

_DESCRIPTION = """
Diversity of the captions a system writes for one cartoon, as in Zhang et al. (2024), Table 6. Each
prediction is one contest's group of captions (10 in the paper).

Average EAD (expectation-adjusted distinct n-grams): tokens are the caption with "." and newlines removed,
split on single spaces, empty strings dropped, case kept. For n = 1..5 the n-grams of a contest's captions
are pooled (N distinct of C in all) and EAD = N / (V·(1 − ((V−1)/V)^C)) with V = 32000 (C = 0 gives 0);
a contest scores the mean over n, and the result is the mean over contests. EAD compares N with its
expectation under a uniform vocabulary, so a group whose n-grams are nearly all distinct would score slightly
above 1 (the reference code lets it); each contest's value is capped at 1 here, so the metric stays in [0, 1].
`distinct_ead` is the original EAD of Liu et al. (2022): unigrams pooled over the whole corpus, capped at 1 (an
all-distinct corpus).

SBERT (with `sbert_model`): 1 − the mean over contests of the mean cosine similarity of the captions'
normalized sentence embeddings, over the full k×k matrix including the diagonal (the paper's model is
sentence-transformers/all-mpnet-base-v2). Its interval is a seeded percentile bootstrap over contests.
"""

_CITATION = ZHANG2024.bibtex

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
    >>> from nycc_bench.metrics import load_metric
    >>> ead = load_metric("ead_diversity")  # or evaluate.load("nycc-bench/ead_diversity")
    >>> result = ead.compute(predictions=[
    ...     ["Please remain seated until the llama stops.", "I think we should see other aquariums."],
    ...     ["The brochure said it was cozy.", "The brochure said it was cozy."],
    ... ])
    >>> round(result["average_ead"], 6), round(result["distinct_ead"], 6), result["n_groups"]
    (0.750027, 0.769531, 2)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class EadDiversity(evaluate.Metric):
    """Average EAD and SBERT diversity; the rules live in `nycc_bench.scoring.ead` and `.sbert`."""

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Sequence(datasets.Value("string"))}),
            homepage="https://github.com/yguooo/cartoon-caption-generation",
            codebase_urls=["https://github.com/yguooo/cartoon-caption-generation"],
            reference_urls=["https://arxiv.org/abs/2406.10522", "https://arxiv.org/abs/2202.13587"],
        )

    def add_batch(self, *, predictions=None, **kwargs):
        """Add groups, checked first: evaluate's encoder would store a missing caption (NaN) as the text "nan"."""
        check_add_call(self, kwargs)
        super().add_batch(predictions=check_groups(predictions, "predictions"))

    def add(self, *, prediction=None, **kwargs):
        """Add one group, checked first."""
        check_add_call(self, kwargs)
        check_groups([prediction], "prediction")
        super().add(prediction=prediction)

    def compute(self, *, predictions=None, **kwargs):
        """Check every argument (a bad one raises ValueError naming it), then score."""
        if kwargs.get("references") is not None:
            raise NyccBenchError("references: ead_diversity scores caption groups alone; pass predictions only")
        kwargs.pop("references", None)
        check_compute_call(self, {"predictions": predictions}, kwargs)
        if predictions is not None:
            predictions = rules.check_ead(predictions, **kwargs)
        return super().compute(predictions=predictions, **kwargs)

    def _compute(self, predictions, vocab_size=VOCAB_SIZE, max_n=MAX_N, sbert_model=None,
                 sbert_include_diagonal=True, sbert_batch_size=64, sbert_device=None):
        return rules.ead_diversity(predictions, vocab_size, max_n, sbert_model, sbert_include_diagonal,
                                   sbert_batch_size, sbert_device)
