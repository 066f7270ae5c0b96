"""Chart adapters: each knows one chart's values layout (`matches(doc)`, `read(yaml_file, doc)`)."""

from __future__ import annotations

from kvlint.launches.charts import ai_on_eks, kubeai, llmd, production_stack

ADAPTERS: list = [production_stack, kubeai, llmd, ai_on_eks]
