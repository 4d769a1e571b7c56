"""The rehearsal Hub the tests publish to: `nycc_bench.publish.local_hub` (`nycc-bench hub serve`)."""

from nycc_bench.publish.local_hub import TYPES, URL_PREFIX, Commit, LocalHub, Repo, Request

__all__ = ["TYPES", "URL_PREFIX", "Commit", "LocalHub", "Repo", "Request"]
