"""Offline judges trained on the crowd: a humor reward model and a HumorBench embedding element grader.

Reward model (predicts a caption's funniness from frozen sentence embeddings + hashed n-grams)::

    train_reward_model(dataset, embedding_model, out_dir, ...) -> RewardModel
    RewardModel.load(path_or_repo); .score(captions, descriptions=None); .compare_groups(a, b, description,
        protocol="overall"|"best_pick"); .compare_pair(a, b); .rerank(candidates, k)
    judge_groups_reward(model, model_groups, human_groups, contest_numbers, descriptions, protocol)
    train(dataset, out_dir, ...) -> dict;  evaluate(model, dataset, ...) -> dict

Embedding grader (element vs explanation cosine similarity, thresholded)::

    train_grader(rubric, out_dir, ...) -> dict;  EmbeddingGrader.load(path_or_repo)
    grade_elements_embedding(descriptions, captions, elements, explanations, grader) -> list[dict]
    cross_validate_grader(rows, ...) -> dict
"""

from .data import RewardData, load_reward_data
from .encoder import DEFAULT_MODEL, Embedder
from .evaluate import evaluate, evaluate_reward_model
from .grader import (
    EmbeddingGrader,
    cross_validate_grader,
    fit_grader,
    grade_elements_embedding,
    train_grader,
)
from .judge import judge_groups_reward
from .model import RewardModel
from .train import train, train_reward_model

__all__ = [
    "DEFAULT_MODEL",
    "Embedder",
    "EmbeddingGrader",
    "RewardData",
    "RewardModel",
    "cross_validate_grader",
    "evaluate",
    "evaluate_reward_model",
    "fit_grader",
    "grade_elements_embedding",
    "judge_groups_reward",
    "load_reward_data",
    "train",
    "train_grader",
    "train_reward_model",
]
