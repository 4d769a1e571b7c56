"""The `upload.py` command line: stage, check and push nycc-bench's Hub repos (or only stage them, --dry-run)."""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from huggingface_hub.utils import HFValidationError, validate_repo_id

from .. import __version__
from ..cli_parser import ForgivingParser
from . import DEFAULT_PACKAGE_SPEC, GIT_PACKAGE_SPEC, KINDS, NAMESPACE, PublishError
from .files import secrets_from_env, walk
from .index import PYPI_SIMPLE, require_release
from .stage import Options, Sources, stage

USAGE_EPILOG = f"""
repos (in namespace NS):
  dataset   NS/newyorker-caption-contest   README.md + data/<config>/*.parquet (from --dataset-dir or --source)
  metrics   NS/<metric>                    evaluate metric Spaces from metrics/<metric>/ (four files each)
  spaces    NS/<space>                     other Spaces from spaces/<space>/ (the leaderboard)
  models    NS/<slug>                      model cards from the leaderboard seed's results records (README.md only)

A push compares each staged file with the repo's (git blob id, or LFS sha256) and commits only what differs, with
removals; a repo that already matches gets no commit. Nothing is pushed unless every card validates and no
staged file holds a token-like string. Spaces install nycc-bench from --package-spec (default: {DEFAULT_PACKAGE_SPEC},
which must be on --index-url before Spaces are pushed: build, twine check and upload first, see RELEASING.md).
Third-party model cards are pushed only with --push-third-party; sample-data builds and cards only with
--allow-sample. The token comes from HF_TOKEN or `hf auth login` and is never printed.
"""


def parser() -> argparse.ArgumentParser:
    p = ForgivingParser(prog="upload.py", description=__doc__, epilog=USAGE_EPILOG,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--namespace", default=NAMESPACE, help=f"Hub user or organisation (default {NAMESPACE})")
    p.add_argument("--only", action="append", choices=KINDS, help="publish only this kind (repeatable)")
    p.add_argument("--private", action="store_true", help="create new repos as private (existing ones keep theirs)")
    p.add_argument("--dry-run", action="store_true", help="stage into --out and check, without a token or network")
    p.add_argument("--out", help="staging folder (required with --dry-run; default: a temporary one)")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--dataset-dir", help="a folder written by `nycc-bench build`")
    src.add_argument("--source", help="build the dataset now: sample, upstream, or a folder of upstream files")
    p.add_argument("--package-spec",
                   help=f"how Spaces install nycc-bench: the release on the index (default: {DEFAULT_PACKAGE_SPEC}, "
                        "and a push refuses until --index-url has it), or before it is there a git URL pinned to a "
                        f"tag or commit, e.g. '{GIT_PACKAGE_SPEC}'")
    p.add_argument("--index-url", default=PYPI_SIMPLE,
                   help="the package index the Spaces install from, checked before a push (default: %(default)s)")
    p.add_argument("--push-third-party", action="store_true",
                   help="also push the evaluation cards of models nycc-bench does not own (into --namespace)")
    p.add_argument("--allow-sample", action="store_true",
                   help="allow pushing a dataset built from the embedded sample and sample-data model cards")
    p.add_argument("--results", help="results files of the model cards (default: the leaderboard seed's)")
    p.add_argument("--endpoint", help="Hub endpoint (default: HF_ENDPOINT or https://huggingface.co)")
    return p


class Redacting:
    """Prints with every known secret replaced, so no output line can carry the token."""

    def __init__(self, secrets: Sequence[str]) -> None:
        self.secrets = [s for s in secrets if s]

    def __call__(self, message: str, err: bool = False) -> None:
        for secret in self.secrets:
            message = message.replace(secret, "***")
        print(message, file=sys.stderr if err else sys.stdout, flush=True)


def _size(folder: Path) -> str:
    total = sum((folder / f).stat().st_size for f in walk(folder)[0])
    return f"{total / 1e6:.1f} MB" if total >= 1e5 else f"{total / 1e3:.1f} kB"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of upload.py; exit status 2 for a refusal before pushing, 1 for a failed push."""
    args = parser().parse_args(argv)
    token = None
    say = Redacting(secrets_from_env())
    try:
        validate_repo_id(f"{args.namespace}/x")
        if args.dry_run and not args.out:
            raise PublishError("dry-run: pass --out DIR, the folder the repos are staged into")
        if not args.dry_run and args.package_spec is None and {"metrics", "spaces"} & set(args.only or KINDS):
            from ..progress import working

            with working("publish: is this release on the package index"):
                require_release(__version__, args.index_url)  # the Spaces' default pin must be installable
        if not args.dry_run:
            from .hub import resolve_token

            token = resolve_token()
            say = Redacting(secrets_from_env([token]))
        sources = Sources(dataset_dir=Path(args.dataset_dir) if args.dataset_dir else None, source=args.source)
        if args.results:
            sources.results_dir = Path(args.results)
        opts = Options(namespace=args.namespace, kinds=args.only or KINDS,
                       package_spec=args.package_spec or DEFAULT_PACKAGE_SPEC,
                       push_third_party=args.push_third_party, allow_sample=args.allow_sample,
                       progress=sys.stderr.isatty())
        with tempfile.TemporaryDirectory(prefix="nycc-bench-upload-") as tmp:
            out = Path(args.out) if args.out else Path(tmp)
            staged, skipped = stage(out, sources, opts, secrets_from_env([token]), say)
            for s in staged:
                say(f"staged  {s.repo_type:<8} {s.repo_id:<48} {len(walk(s.folder)[0]):>4} files {_size(s.folder):>9}")
            for s in skipped:
                say(f"skipped {s.repo_id}: {s.reason}")
            if args.dry_run:
                say(f"dry run: {len(staged)} repos staged in {out}; nothing pushed")
                return 0
            return _push(staged, token, args, say)
    except (PublishError, HFValidationError) as err:
        say(f"upload.py: error: {err}", err=True)
        return 2


def _push(staged: list, token: str | None, args: argparse.Namespace, say: Redacting) -> int:
    """Push every staged repo; the first failure stops the run (later repos are not touched)."""
    from huggingface_hub import HfApi

    from .hub import push

    api = HfApi(endpoint=args.endpoint, token=token)
    for s in staged:
        try:
            push(api, s, args.private, say)
        except Exception as err:  # any network or Hub error: report it redacted, never with the request headers
            say(f"upload.py: error: pushing {s.repo_id} failed: {type(err).__name__}: {err}", err=True)
            return 1
    return 0
