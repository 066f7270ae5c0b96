"""Shell arithmetic, `$(( ... ))`: integers, + - * / %, unary signs and parentheses, as the shell computes them.

Its own module so a launch without arithmetic never imports ast. The
expression has already been checked to hold only digits, operators and parentheses (kvlint.launches.env).
"""

from __future__ import annotations

import ast


def evaluate(text: str) -> int:
    """The value of `text`; ValueError when it is not shell arithmetic, ArithmeticError on a division by
    zero or a product past 64 bits."""
    return _arith(ast.parse(text, mode="eval").body)


def _tdiv(a: int, b: int) -> int:
    """Integer division truncating toward zero, as the shell does (Python's // floors)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.Div: _tdiv, ast.Mod: lambda a, b: a - b * _tdiv(a, b)}


def _arith(node: ast.AST) -> int:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _arith(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left, right = _arith(node.left), _arith(node.right)
        if isinstance(node.op, (ast.Div, ast.Mod)) and right == 0:
            raise ZeroDivisionError
        if isinstance(node.op, ast.Mult) and abs(left) > 2**63 // max(1, abs(right)):
            raise OverflowError
        return _BINOPS[type(node.op)](left, right)
    raise ValueError("not shell arithmetic")
