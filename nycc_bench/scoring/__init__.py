"""Every scoring rule of SPEC §3 as pure functions: accuracy, overlap, diversity, win rates, autograder."""

from nycc_bench.scoring.accuracy import accuracy, crowd_ny_accuracy, fold_accuracies
from nycc_bench.scoring.autograder import CATEGORIES, element_scores, validation_scores
from nycc_bench.scoring.bootstrap import bootstrap_ci
from nycc_bench.scoring.ead import average_ead, distinct_ead, group_eads
from nycc_bench.scoring.overlap import bleu, overlap_scores, rouge_l
from nycc_bench.scoring.sbert import resolve_model_path, sbert_diversity
from nycc_bench.scoring.win_rate import THRESHOLD, recalibrate, win_rate

__all__ = [
    "CATEGORIES",
    "THRESHOLD",
    "accuracy",
    "average_ead",
    "bleu",
    "bootstrap_ci",
    "crowd_ny_accuracy",
    "distinct_ead",
    "element_scores",
    "fold_accuracies",
    "group_eads",
    "overlap_scores",
    "recalibrate",
    "resolve_model_path",
    "rouge_l",
    "sbert_diversity",
    "validation_scores",
    "win_rate",
]
