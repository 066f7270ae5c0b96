"""Chart adapters: each knows one chart's values layout (`matches(doc)`, `read(yaml_file, doc)`)."""

from __future__ import annotations

from kvlint.launches.charts import ai_on_eks, generic, kubeai, llmd, production_stack, runpod

# order matters: the generic adapter only after every chart that knows its own keys
ADAPTERS: list = [production_stack, kubeai, llmd, ai_on_eks, runpod, generic]
