"""Package data: JSON tables and schemas, read as plain files.

importlib.resources imports zipfile, tempfile and its readers on every start-up, a visible part of a
pre-commit run; kvlint is always installed as files (setuptools wheel, never zipped), so a path
next to this module is enough.
"""

from __future__ import annotations

import json
import os
from typing import Any

DATA_DIR = os.path.dirname(os.path.abspath(__file__))
REGISTRY_DIR = os.path.join(os.path.dirname(DATA_DIR), "models", "registry")  # bundled trimmed configs


def read_text(name: str, folder: str = DATA_DIR) -> str:
    with open(os.path.join(folder, name), encoding="utf-8") as fh:
        return fh.read()


def load_json(name: str, folder: str = DATA_DIR) -> Any:
    return json.loads(read_text(name, folder))
