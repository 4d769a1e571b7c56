"""Ask the Hub once, quickly, whether a model id can be loaded, before transformers spends a minute on retries.

An unknown id, or an unreachable Hub with nothing cached, is one line naming the id and the settings that
matter (`HF_HUB_OFFLINE`, `HF_ENDPOINT`), in seconds. A model that is cached while the Hub cannot be reached is
loaded from the cache only (`local_files_only`), without the loaders' own network retries.
"""

from __future__ import annotations

from huggingface_hub import HfApi, constants, snapshot_download
from huggingface_hub.errors import GatedRepoError, RepositoryNotFoundError, RevisionNotFoundError

from ..errors import NyccBenchError
from ..urls import redact_url

HUB_TIMEOUT_S = 5.0
"""The one metadata request's time limit: a Hub that answers at all answers well within it."""


def cached(name: str, revision: str | None = None) -> bool:
    """Whether a snapshot of the model at `revision` (default branch: None) is in the local Hub cache."""
    try:
        snapshot_download(name, revision=revision, local_files_only=True)
    except Exception:  # not cached (or an unreadable cache entry): the caller decides what to do
        return False
    return True


def load_error(spec: str, name: str, err: BaseException) -> NyccBenchError:
    """A loader's failure as one line naming the spec, the id and the Hub settings."""
    reason = " ".join(str(err).split())[:300] or type(err).__name__
    return NyccBenchError(f"system: cannot load {spec!r} (model {name!r}): {reason}; check the id, or set "
                          f"HF_ENDPOINT (now {redact_url(constants.ENDPOINT)}) to a mirror, or HF_HUB_OFFLINE=1 "
                          "to load only what is cached")


def check_hub_model(spec: str, name: str, revision: str | None = None) -> bool:
    """Raise a one-line error for a Hub id that cannot load; return True when it must load from the cache only."""
    endpoint = redact_url(constants.ENDPOINT)
    if constants.HF_HUB_OFFLINE:
        if cached(name, revision):
            return True
        raise NyccBenchError(f"system: {spec!r}: model {name!r} is not in the local Hub cache and HF_HUB_OFFLINE is "
                             f"set; unset HF_HUB_OFFLINE (or set HF_ENDPOINT to a mirror) to download it")
    try:
        HfApi(endpoint=constants.ENDPOINT).model_info(name, revision=revision, timeout=HUB_TIMEOUT_S)
    except GatedRepoError:  # exists; the loader says what access it needs
        return False
    except RevisionNotFoundError:
        raise NyccBenchError(f"system: {spec!r}: model {name!r} has no revision {revision!r} on {endpoint}; "
                             "pass a branch, tag or commit it has") from None
    except RepositoryNotFoundError:
        raise NyccBenchError(f"system: {spec!r}: no model {name!r} on the Hub at {endpoint} (or it is private: set "
                             "HF_TOKEN); check the id, or set HF_ENDPOINT to the mirror that has it, or "
                             "HF_HUB_OFFLINE=1 to use the local cache") from None
    except Exception as err:  # no network, DNS, refused, 5xx: the Hub is unreachable, however it failed
        if cached(name, revision):
            return True
        reason = " ".join(str(err).split())[:200] or type(err).__name__
        raise NyccBenchError(f"system: {spec!r}: cannot reach the Hub at {endpoint} ({reason}) to download model "
                             f"{name!r}, and it is not in the local cache; connect, set HF_ENDPOINT to a mirror, or "
                             "download it where there is network and run with HF_HUB_OFFLINE=1") from None
    return False
