"""kvlint rule catalogue: one module per rule, discovered by kvlint.registry."""
