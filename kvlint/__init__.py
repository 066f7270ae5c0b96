"""kvlint: KV-cache arithmetic for vLLM and SGLang deployments, checked at commit time."""

__version__ = "0.1.0"

# The one place the project's home is spelled (SARIF helpUri, docs links). README.md and docs/ci.md quote it
# in their pre-commit snippets; tests/test_repo_url.py fails when they drift from this value.
REPO_URL = "https://github.com/kvlint/kvlint"
DOCS_URL = f"{REPO_URL}/blob/main/docs/rules.md"
