"""Push staged folders to the Hub: create each repo, compare file hashes with the remote, commit only changes.

Idempotency does not rest on the Hub skipping unchanged files: before committing, the remote tree is listed
(`list_repo_tree`, recursive) and each staged file is compared with it — the git blob id (sha1 of
`blob <size>\\0<bytes>`) for regular files, the LFS sha256 for LFS files. Changed or new files are added, remote
files that are no longer staged are deleted (except `.gitattributes`, which the Hub owns), and when nothing
differs no commit is made at all.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi, get_token
from huggingface_hub.hf_api import RepoFile
from huggingface_hub.utils.sha import git_hash

from .. import __version__
from . import PublishError
from .files import walk
from .stage import Staged

KEEP_REMOTE = {".gitattributes"}
MAX_LISTED = 100  # files named in a commit description


@dataclass
class Plan:
    """What one push changes in one repo."""

    repo_id: str
    upload: list[str] = field(default_factory=list)
    delete: list[str] = field(default_factory=list)
    unchanged: int = 0

    @property
    def empty(self) -> bool:
        return not self.upload and not self.delete


def resolve_token() -> str:
    """The token from `HF_TOKEN` or the saved login (`hf auth login`); never printed."""
    token = get_token()
    if not token:
        raise PublishError("no Hugging Face token: set HF_TOKEN or run `hf auth login` (a dry run needs none)")
    return token


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def same_file(local: Path, remote: RepoFile) -> bool:
    """Whether a local file has the content of a remote one (size first, then the hash the Hub keeps)."""
    if local.stat().st_size != remote.size:
        return False
    if remote.lfs is not None:
        return _sha256(local) == remote.lfs.sha256
    return git_hash(local.read_bytes()) == remote.blob_id


def plan(api: HfApi, staged: Staged) -> Plan:
    """Compare the staged folder with the repo's main branch."""
    remote = {f.path: f for f in api.list_repo_tree(staged.repo_id, repo_type=staged.repo_type, recursive=True)
              if isinstance(f, RepoFile)}
    local = walk(staged.folder)[0]
    result = Plan(staged.repo_id)
    for rel in local:
        if rel in remote and same_file(staged.folder / rel, remote[rel]):
            result.unchanged += 1
        else:
            result.upload.append(rel)
    result.delete = sorted(set(remote) - set(local) - KEEP_REMOTE)
    return result


@contextmanager
def hub_errors(endpoint: str) -> Iterator[None]:
    """A Hub that cannot be reached, or that refuses the token, is one line naming the endpoint and the fix (never
    the client's traceback); nothing local is touched, so what was to be pushed is still there."""
    import importlib

    from huggingface_hub.errors import HfHubHTTPError

    clients = []  # huggingface_hub's HTTP client: httpx, or its httpx2 fork in newer releases
    for name in ("httpx2", "httpx"):
        with suppress(ImportError, AttributeError):
            clients.append(importlib.import_module(name).TransportError)
    try:
        yield
    except HfHubHTTPError as err:
        status = err.response.status_code if err.response is not None else None
        if status in (401, 403):
            raise PublishError(f"hub: {endpoint} refused the token (HTTP {status}); set HF_TOKEN to a token with "
                               "write access to the repo (or run `hf auth login`) and push again") from None
        said = (str(err).strip().splitlines() or [type(err).__name__])[0][:200]
        raise PublishError(f"hub: {endpoint} answered HTTP {status} ({said}); push again later") from None
    except (*clients, ConnectionError) as err:  # refused, unknown host, timed out
        raise PublishError(f"hub: cannot reach {endpoint} ({type(err).__name__}); check the network or "
                           "--endpoint, then push again") from None


def push(api: HfApi, staged: Staged, private: bool, say: Callable[[str], None]) -> Plan:
    """Create the repo if needed and commit what differs; a repo that already matches gets no commit."""
    with hub_errors(api.endpoint):
        return _push(api, staged, private, say)


def _push(api: HfApi, staged: Staged, private: bool, say: Callable[[str], None]) -> Plan:
    """`push` (see there)."""
    api.create_repo(staged.repo_id, repo_type=staged.repo_type, private=True if private else None, exist_ok=True,
                    space_sdk=staged.space_sdk if staged.repo_type == "space" else None)
    changes = plan(api, staged)
    if changes.empty:
        say(f"{staged.repo_type} {staged.repo_id}: up to date ({changes.unchanged} files), no commit")
        return changes
    operations: list[CommitOperationAdd | CommitOperationDelete] = [
        CommitOperationAdd(path_in_repo=rel, path_or_fileobj=str(staged.folder / rel)) for rel in changes.upload]
    operations += [CommitOperationDelete(path_in_repo=rel) for rel in changes.delete]
    summary = f"{len(changes.upload)} file(s) added or changed, {len(changes.delete)} removed"
    lines = [*(f"+ {p}" for p in changes.upload), *(f"- {p}" for p in changes.delete)]
    if len(lines) > MAX_LISTED:
        lines = [*lines[:MAX_LISTED], f"... and {len(lines) - MAX_LISTED} more"]
    listing = "\n".join(lines)
    info = api.create_commit(staged.repo_id, operations, repo_type=staged.repo_type,
                             commit_message=f"Publish {staged.kind} with nycc-bench {__version__}: {summary}",
                             commit_description=f"Staged and pushed by upload.py.\n\n{listing}")
    say(f"{staged.repo_type} {staged.repo_id}: committed {info.oid[:12]} ({summary}; {changes.unchanged} unchanged)")
    return changes
