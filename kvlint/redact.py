"""The one rule for what kvlint never prints: credentials.

A value is a credential when its name says so or when it looks like a token:
- names (flags, env vars, logged argument names, compared after `--` is stripped, upper-cased and `-`
  read as `_`): anything ending in `_TOKEN` or `_KEY` (or a bare `TOKEN`), `*API*_KEYS`, anything holding
  `SECRET`, `PASSWORD` or `PASSWD`. So `--api-key`, `--hf-token`, `--admin-api-key`, `--ssl-keyfile-password`,
  `HUGGING_FACE_HUB_TOKEN`, `OPENAI_API_KEYS` are masked; `--max-num-batched-tokens` (`_TOKENS`),
  `kv_bytes_per_token` and `--bucket-time-to-first-token` (a token counted, not held: `PER`, `FIRST`, `PAD`,
  ... before `TOKEN`), `KV_CACHE_DTYPE`, `--ssl-keyfile` (a path), `AWS_ACCESS_KEY_ID` (an identifier) and a
  bare `key:` (the key *name* of a Kubernetes secretKeyRef) are not;
- shapes, anywhere in any text: Hugging Face tokens (`hf_` and 30+ letters and digits), OpenAI-style keys
  (`sk-` and 20+), GitHub tokens (`ghp_`, `gho_`, ... and 30+).
Decided: every value under a `*_KEY` name is masked, even when it is only a key *name* (`CACHE_KEY=user`):
a masked name costs a reader nothing, a rule that guessed "this one is harmless" would let a key out.
Kept: a value that is nothing but a reference (`$(API_KEY)`, `${HF_TOKEN}`, `{{ .Values.token }}`): it holds
no secret and says where the value comes from.

Redaction happens where values enter records (settings from credential flags in kvlint.launches.argv,
logged arguments in kvlint.logs.parse), so no reporter present or future sees them; `redact_text` is
the last net over every output (check's four formats, inspect, verify, budget, error lines).
"""

from __future__ import annotations

import re
from typing import Any

from kvlint.lazyre import lazy

MASK = "***"
_TOKEN_SHAPES = r"\bhf_[A-Za-z0-9]{30,}|\bsk-[A-Za-z0-9_-]{20,}|\bgh[pousr]_[A-Za-z0-9]{30,}"
_TOKEN = lazy(_TOKEN_SHAPES)
# values that are credentials whatever their name: a URL's user:password@ (or token@), an Authorization
# header's scheme and credentials, an `s3://KEY:SECRET@bucket`
_URL_USERINFO = lazy(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]{0,30}://)(?P<info>[^\s/?#@'\"<>]{1,512})@(?=[^\s@])")
_AUTH_SCHEME = lazy(r"(?i)(?P<scheme>\bBearer[ \t]+|\bAuthorization[\"']?[ \t]*[:=][ \t]*[\"']?(?:[A-Za-z]+[ \t]+)?)"
                    r"(?P<cred>[A-Za-z0-9._~+/=:-]{4,})")
_REFERENCE = lazy(r"\$\([A-Za-z_][\w.-]*\)|\$\{[A-Za-z_]\w*\}|\$[A-Za-z_]\w*|\{\{[^{}]*\}\}")
_VALUE = r"""(?P<value>"(?:[^"\\]|\\.)*"|'[^']*'|\$\([^)\s]*\)|[^\s'",;}\])(={\[]+)"""
# `--api-key X`, `--hf-token=X`: a flag (not inside a longer word) and a value that is not the next flag
_FLAG = lazy(r"(?<![\w-])(?P<name>--?[A-Za-z][\w-]*)(?P<sep>[ \t]*=[ \t]*|[ \t]+)(?=[^\s-])" + _VALUE)
# `HF_TOKEN=X`, `api_key: X`, `"api_key": "X"`, `api_key='X'` (a Python repr in a log)
_KEYED = lazy(r"(?<![\w.-])(?P<name>[A-Za-z_][\w.-]*)(?P<close>['\"]?)(?P<sep>[ \t]*[:=][ \t]*)" + _VALUE)
_LOCATION = lazy(r"\d+:\d+:?")
_LITERALS = frozenset({"null", "None", "true", "false", "True", "False", "~", ""})


def is_secret_name(name: str) -> bool:
    """True for the name of a flag, env var or argument that carries a credential (see the module doc)."""
    n = name.strip().lstrip("-").upper().replace("-", "_")
    words = [w for w in n.split("_") if w]
    if not words:
        return False
    if "SECRET" in n or "PASSWORD" in n or "PASSWD" in n:
        return True
    last, before = words[-1], words[-2] if len(words) > 1 else ""
    if last == "TOKEN":  # `kv_bytes_per_token`, `time_to_first_token`, `pad_token` count or name tokens
        return before not in _COUNTED_TOKENS
    if last == "KEY":
        return bool(before)  # a bare `key:` names a key (secretKeyRef); `API_KEY`, `SSH_KEY`, any `*_KEY` are masked
    return last == "KEYS" and "API" in words  # OPENAI_API_KEYS; `dotted_json_keys` is not


_COUNTED_TOKENS = frozenset({"PER", "FIRST", "LAST", "NEXT", "EACH", "EVERY", "BOS", "EOS", "PAD", "UNK", "SEP", "CLS",
                             "MASK", "SPECIAL", "START", "END", "STOP", "IMAGE", "VIDEO", "AUDIO"})


def is_reference(value: str) -> bool:
    """Only a `$(VAR)`, `${VAR}`, `$VAR` or `{{ ... }}`: where a value comes from, not the value."""
    return _REFERENCE.fullmatch(value.strip()) is not None


def redact_value(name: str, value: Any) -> Any:
    """`value` as it may be shown under `name`: MASK for a credential (unless a bare reference), token
    shapes masked inside any other string; lists and mappings keep their shape, item by item."""
    if isinstance(value, str):
        if is_secret_name(name) and value and not is_reference(value):
            return MASK
        return redact_shapes(value)
    if isinstance(value, (list, tuple)):
        return type(value)(redact_value(name, v) for v in value)
    if isinstance(value, dict):
        return {k: redact_value(name if is_secret_name(name) else str(k), v) for k, v in value.items()}
    if is_secret_name(name) and value is not None and not isinstance(value, bool):
        return MASK
    return value


def redact_text(text: str) -> str:
    """Any output text with credentials masked: token shapes anywhere, and the value after a credential's name
    (`--api-key X`, `--hf-token=X`, `HF_TOKEN=X`, `api_key: X`, `"api_key": "X"`, `api_key='X'`). Three linear
    passes; a JSON or SARIF document stays valid JSON (a masked bare literal becomes the string "***")."""
    if not text:
        return text
    text = redact_shapes(text)
    if not _may_name_a_credential(text.upper()):
        return text
    text = _FLAG.sub(_mask_named, text)
    return _KEYED.sub(_mask_named, text)


def redact_shapes(text: str) -> str:
    """Credentials known by their shape, whatever name they stand under: token shapes, a URL's userinfo
    (`https://user:pass@host` -> `https://***@host`, `s3://KEY:SECRET@bucket`),
    `Bearer X`, `Authorization: <scheme> X`."""
    if any(start in text for start in _TOKEN_STARTS):
        text = _TOKEN.sub(MASK, text)
    if "://" in text and "@" in text:
        text = _URL_USERINFO.sub(lambda m: f"{m.group('scheme')}{MASK}@", text)
    if _names_auth(text):
        text = _AUTH_SCHEME.sub(lambda m: f"{m.group('scheme')}{MASK}", text)
    return text


_AUTH_WORDS = lazy(r"(?i)bearer|authorization")


def _names_auth(text: str) -> bool:
    """Whether `text` holds "bearer" or "authorization" in any case. ASCII text (nearly all output) is lowered and
    searched as plain substrings, which costs a fraction of the case-blind pattern's scan (every finding's text
    passes here); other text keeps the pattern, whose case folding also matches non-ASCII letters (the Kelvin
    sign, a dotless i) that lower() would not map."""
    if text.isascii():
        lowered = text.lower()
        return "bearer" in lowered or "authorization" in lowered
    return _AUTH_WORDS.search(text) is not None


# Exact preconditions, so most text skips the passes (and a clean run never compiles them): a token shape
# starts with one of these; a credential's name, upper-cased as is_secret_name reads it, holds SECRET or
# PASSW(ORD/D), or ends in TOKEN, KEY or KEYS where the name ends: what follows a name in both patterns is a
# separator, never a character that could go on with the name. So "16384 tokens" and
# "max_num_batched_tokens", in nearly every finding, skip the two passes.
_TOKEN_STARTS = ("hf_", "sk-", *(f"gh{c}_" for c in "pousr"))
_NAME_WORDS = ("SECRET", "PASSW")
_NAME_END = lazy(r"(?:TOKEN|KEYS?)(?![\w.-])")


def _may_name_a_credential(upper: str) -> bool:
    if any(word in upper for word in _NAME_WORDS):
        return True
    return ("TOKEN" in upper or "KEY" in upper) and _NAME_END.search(upper) is not None


def _mask_named(m: re.Match[str]) -> str:
    name, value = m.group("name"), m.group("value")
    quoted = value[:1] in ("'", '"') and len(value) >= 2
    inner = value[1:-1] if quoted else value
    if not is_secret_name(name) and quoted and _may_name_a_credential(inner.upper()):
        # a quoted value that holds a credential's flag (`--model "${M --password=X}"`, a fuzz case of turn 42): the
        # match took the whole string, so the credential inside is masked here
        return m.group(0)[: m.start("value") - m.start()] + value[0] + redact_text(inner) + value[-1]
    if not is_secret_name(name) or inner in (MASK, *_LITERALS) or is_reference(inner):
        return m.group(0)
    if m.group("sep") == ":" and _LOCATION.fullmatch(inner):  # `secrets.yaml:8:12:`, a finding's place
        return m.group(0)
    masked = f"{value[0]}{MASK}{value[-1]}" if quoted else f'"{MASK}"' if m.groupdict().get("close") else MASK
    return m.group(0)[: m.start("value") - m.start()] + masked
