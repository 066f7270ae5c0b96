"""`@record`: a frozen dataclass, made cheaply and only the first time the class is used.

Why: every pipeline stage is a frozen typed record, about a hundred classes, and CPython 3.11's
`@dataclass(frozen=True)` compiles five or six methods from source for each (`__init__`, `__repr__`,
`__eq__`, `__hash__`, the frozen `__setattr__` and `__delattr__`), and importing dataclasses brings
inspect, ast, dis and tokenize. That was most of a one-file pre-commit run, for
classes most runs never instantiate (a Kubernetes file needs no chart, compose or log record).

A `@record` class is declared exactly like `@dataclass(frozen=True)`, with `field()` from here (type
checkers see a dataclass, through `dataclass_transform`). On its first instantiation, comparison, hash,
repr or unpickling, or when its fields are asked for, the class is made: its fields are collected as
dataclasses collects them (`fields`, `replace` and `asdict` here read them), its `__init__` starts as a
copy of one shared body and is compiled after `HOT` instances, and the other methods are shared functions
over an `attrgetter`, with the results `@dataclass(frozen=True)` gives: equal when the classes are the
same and the compared fields equal, the hash of the tuple of hashed fields, `Name(field=value, ...)`, and
`FrozenInstanceError` on assignment. Methods the class body defines are kept. The dataclasses module sees
a record too (`dataclasses.fields`, `asdict`, `replace`, `is_dataclass`, a dataclass subclassing one):
`__dataclass_fields__` is made, importing dataclasses, only when something reads it.

`@record(frozen=False)` declares a mutable record the same way (`@dataclass`: assignable, unhashable).
Records inherit only from records or plain classes; a dataclass may subclass a record that is made
(`materialise(cls)`), since dataclasses reads its bases' fields when the subclass is declared.
"""

from __future__ import annotations

import _thread
import operator
import reprlib
import sys
from collections.abc import Callable, Mapping
from types import CodeType, FunctionType, MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar, overload

T = TypeVar("T")

if sys.version_info >= (3, 11):
    from typing import dataclass_transform
elif TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:  # Python 3.10 at run time: the marker only informs type checkers

    def dataclass_transform(**_: Any) -> Callable[[T], T]:
        return lambda decorated: decorated


# The methods a first use goes through: creating, comparing, hashing, printing, and restoring a pickled
# or copied instance (pickle and copy make instances without __init__, then call __setstate__).
_TRIGGERS = ("__init__", "__repr__", "__eq__", "__hash__", "__setstate__")
_PENDING = "__kvlint_record_pending__"
_INIT_NAMES = "__kvlint_record_init__"  # the fields __init__ takes, in order (for replace)
_INIT_VALUES = "__kvlint_record_values__"  # obj -> a tuple of those fields' values (operator.attrgetter, for replace)
_ABSENT = object()
_OWN = "_kvlint_record_"  # prefix of the names the __init__ template uses for itself
_FIELDS = "__kvlint_record_fields__"  # name -> Field, bases' first: what `fields` reads
_LOCK = _thread.RLock()


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()  # no default given (as MISSING)


class FrozenInstanceError(AttributeError):
    """Assignment to a field of a frozen record (as dataclasses.FrozenInstanceError)."""


_NO_METADATA: Mapping[Any, Any] = MappingProxyType({})


class Field:
    """One field of a record, with the attributes a `dataclasses.Field` has (read by `fields`, `replace`)."""

    __slots__ = ("name", "type", "default", "default_factory", "init", "repr", "hash", "compare", "metadata",
                 "kw_only")

    def __init__(self, default: Any, default_factory: Any, init: bool, repr: bool, hash: bool | None,
                 compare: bool, metadata: Mapping[Any, Any] | None) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name: str = ""
        self.type: Any = None
        self.default, self.default_factory, self.init, self.repr = default, default_factory, init, repr
        self.hash, self.compare, self.kw_only = hash, compare, False
        self.metadata = MappingProxyType(dict(metadata)) if metadata else _NO_METADATA

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r}, init={self.init})"


@overload
def field(*, default: T, init: bool = ..., repr: bool = ..., hash: bool | None = ..., compare: bool = ...,
          metadata: Mapping[Any, Any] | None = ...) -> T: ...


@overload
def field(*, default_factory: Callable[[], T], init: bool = ..., repr: bool = ..., hash: bool | None = ...,
          compare: bool = ..., metadata: Mapping[Any, Any] | None = ...) -> T: ...


@overload
def field(*, init: bool = ..., repr: bool = ..., hash: bool | None = ..., compare: bool = ...,
          metadata: Mapping[Any, Any] | None = ...) -> Any: ...


def field(*, default: Any = MISSING, default_factory: Any = MISSING, init: bool = True, repr: bool = True,
          hash: bool | None = None, compare: bool = True, metadata: Mapping[Any, Any] | None = None) -> Any:
    """A record field with options, as `dataclasses.field` (no kw_only: records take fields in order)."""
    return Field(default, default_factory, init, repr, hash, compare, metadata)


def fields(class_or_instance: Any) -> tuple[Field, ...]:
    """The fields of a record class or instance, in order (as `dataclasses.fields`)."""
    cls = class_or_instance if isinstance(class_or_instance, type) else type(class_or_instance)
    if _PENDING in cls.__dict__ or getattr(cls, _FIELDS, None) is None:
        materialise(cls)
    found: dict[str, Field] | None = getattr(cls, _FIELDS, None)
    if found is None:
        raise TypeError(f"{cls.__qualname__} is not a record")
    return tuple(found.values())


@overload
def record(cls: type[T], /) -> type[T]: ...


@overload
def record(*, frozen: bool = True, order: bool = False) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(field, Field))
def record(cls: type[T] | None = None, /, *, frozen: bool = True,
           order: bool = False) -> type[T] | Callable[[type[T]], type[T]]:
    """Declare `cls` a frozen dataclass, made on first use; `@record(frozen=False)`: a mutable one (as
    `@dataclass`: assignable, and unhashable unless the body defines `__hash__`); `order=True` adds `<`,
    `<=`, `>`, `>=` over the compared fields. Returns the same class."""

    def declare(klass: type[T]) -> type[T]:
        saved = {name: klass.__dict__.get(name, _ABSENT) for name in _TRIGGERS}
        setattr(klass, _PENDING, (saved, frozen, order))
        for name in _TRIGGERS:
            setattr(klass, name, _trigger(name))
        klass.__dataclass_fields__ = _DATACLASS_VIEW  # type: ignore[attr-defined]
        return klass

    return declare if cls is None else declare(cls)


def materialise(cls: type) -> None:
    """Make `cls` and every pending record it inherits from a dataclass now, bases first."""
    with _LOCK:
        for klass in reversed(cls.__mro__):
            pending = klass.__dict__.get(_PENDING)
            if pending is None:
                continue
            saved, frozen, order = pending
            delattr(klass, _PENDING)
            for name, value in saved.items():  # what the class body itself defined
                if value is _ABSENT:
                    delattr(klass, name)
                else:
                    setattr(klass, name, value)
            body = dict(klass.__dict__)
            _collect_fields(klass, frozen, order)
            _install(klass, body, frozen, order)
            if not klass.__doc__:
                klass.__doc__ = f"{klass.__name__}({', '.join(f.name for f in fields(klass))})"


def _collect_fields(cls: type, frozen: bool, order: bool) -> None:
    """The record's fields (the bases' first, then its own annotations, defaults and `field()`s), what
    `@dataclass` keeps of them (class attributes for defaults), `__dataclass_params__` and
    `__match_args__`.

    Why not `dataclasses.dataclass`: importing dataclasses (and inspect, ast, dis, tokenize with it) is a
    visible part of a one-file run, and it checks every annotation string for ClassVar and InitVar with a
    regular expression, for every class; records declare neither.
    """
    collected: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        collected.update(base.__dict__.get(_FIELDS) or {})
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        _refuse_pseudo_field(cls, name, annotation)
        value = _own_field(cls.__dict__.get(name, MISSING))
        f = value if isinstance(value, Field) else field(default=value)
        f.name, f.type = name, annotation
        if f.default is not MISSING and type(f.default).__hash__ is None:
            raise ValueError(f"mutable default {type(f.default)} for field {name} is not allowed: use default_factory")
        if isinstance(value, Field):
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        collected.pop(name, None)
        collected[name] = f
    _check_order(collected.values())
    type.__setattr__(cls, _FIELDS, collected)
    type.__setattr__(cls, "__dataclass_params__", _Params(frozen, order))
    if "__match_args__" not in cls.__dict__:
        type.__setattr__(cls, "__match_args__", tuple(f.name for f in collected.values() if f.init))


def _refuse_pseudo_field(cls: type, name: str, annotation: Any) -> None:
    """ClassVar and InitVar annotations are not fields; records declare none, so refuse rather than guess."""
    text = annotation if isinstance(annotation, str) else repr(annotation)
    if "ClassVar" in text or "InitVar" in text:
        raise TypeError(f"{cls.__qualname__}.{name}: ClassVar and InitVar are not supported by @record")


class _Params:
    """`__dataclass_params__`: what a dataclass subclass reads from its bases (it checks `frozen`)."""

    def __init__(self, frozen: bool, order: bool) -> None:
        self.init, self.repr, self.eq, self.order, self.unsafe_hash = True, True, True, order, False
        self.frozen, self.match_args, self.kw_only, self.slots, self.weakref_slot = frozen, True, False, False, False


def _own_field(value: Any) -> Any:
    """A `dataclasses.field(...)` in a record's body as a record Field (any other value unchanged)."""
    if type(value).__name__ != "Field" or type(value).__module__ != "dataclasses":
        return value
    import dataclasses

    def given(option: Any) -> Any:
        return MISSING if option is dataclasses.MISSING else option

    return Field(given(value.default), given(value.default_factory), value.init, value.repr, value.hash,
                 value.compare, value.metadata)


def replaceable(*names: str) -> Callable[[type[T]], type[T]]:
    """Mark a class with its own `__init__` (not a record) so `replace` copies an instance by passing
    these attributes to that `__init__`, with the changes."""

    def mark(cls: type[T]) -> type[T]:
        type.__setattr__(cls, _INIT_NAMES, names)
        type.__setattr__(cls, _INIT_VALUES, _values_of(names))
        return cls

    return mark


def _check_order(declared: Any) -> None:
    """As dataclasses: a parameter without a default cannot follow one with a default."""
    defaulted: str | None = None
    for f in declared:
        if not f.init:
            continue
        if f.default is MISSING and f.default_factory is MISSING:
            if defaulted is not None:
                raise TypeError(f"non-default argument {f.name!r} follows default argument {defaulted!r}")
        else:
            defaulted = defaulted or f.name


class _DataclassView:
    """`__dataclass_fields__` of a record: dataclasses' own Field objects, made (importing dataclasses) only
    when something asks, so `dataclasses.fields`, `asdict`, `replace`, `is_dataclass` and dataclass
    subclasses work on records while a check never imports dataclasses."""

    def __get__(self, instance: Any, owner: type) -> dict[str, Any]:
        import dataclasses

        made: dict[str, Any] = {}
        for f in fields(owner):
            options: dict[str, Any] = {"init": f.init, "repr": f.repr, "hash": f.hash, "compare": f.compare,
                                       "metadata": f.metadata}
            if f.default is not MISSING:
                options["default"] = f.default
            if f.default_factory is not MISSING:
                options["default_factory"] = f.default_factory
            real: Any = dataclasses.field(**options)
            real.name, real.type, real.kw_only = f.name, f.type, False
            real._field_type = dataclasses._FIELD  # type: ignore[attr-defined]  # what fields() selects on
            made[f.name] = real
        type.__setattr__(owner, "__dataclass_fields__", made)
        return made


_DATACLASS_VIEW = _DataclassView()


def asdict(obj: Any) -> dict[str, Any]:
    """`dataclasses.asdict` for records (any other dataclass goes to it): a dict of the fields, records,
    lists, tuples and dicts inside converted the same way, other values deep-copied."""
    if getattr(type(obj), _FIELDS, None) is None:
        import dataclasses

        return dataclasses.asdict(obj)
    plain: dict[str, Any] = _plain(obj)
    return plain


def _plain(value: Any) -> Any:
    if getattr(type(value), _FIELDS, None) is not None:
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a named tuple keeps its type
        return type(value)(*[_plain(v) for v in value])
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return type(value)((_plain(k), _plain(v)) for k, v in value.items())
    if hasattr(type(value), "__dataclass_fields__") and not isinstance(value, type):
        import dataclasses

        return dataclasses.asdict(value)
    import copy

    return copy.deepcopy(value)


def _install(cls: type, body: dict[str, Any], frozen: bool, order: bool) -> None:
    """The methods `@dataclass(frozen=..., order=...)` would add, where the class body did not define them."""
    declared = fields(cls)
    methods: dict[str, Any] = _value_methods(declared)
    if order:
        methods.update(_order_methods(declared))
    if frozen:
        for name in ("__setattr__", "__delattr__"):
            if name in body:
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
        # pickle and copy restore slots by setattr, which a frozen class refuses: restore them underneath
        methods.update({"__setattr__": _frozen_setattr, "__delattr__": _frozen_delattr, "__setstate__": _restore})
    else:
        methods["__hash__"] = None  # as dataclasses makes a mutable class with __eq__: unhashable
    if "__init__" not in body:
        methods["__init__"] = _init(cls, declared)
        methods[_INIT_NAMES] = tuple(f.name for f in declared if f.init)
        methods[_INIT_VALUES] = _values_of(methods[_INIT_NAMES])
    explicit_hash = "__hash__" in body and not (body["__hash__"] is None and "__eq__" in body)
    for name, method in methods.items():
        if explicit_hash if name == "__hash__" else name in body:
            continue
        setattr(cls, name, method)


def _value_methods(fields: tuple[Field, ...]) -> dict[str, Callable[..., Any]]:
    """`__eq__`, `__hash__` and `__repr__` over the fields, as closures rather than compiled source."""
    compared = _tuple_of([f.name for f in fields if f.compare])
    hashed = _tuple_of([f.name for f in fields if (f.compare if f.hash is None else f.hash)])
    shown = [f.name for f in fields if f.repr]

    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return compared(self) == compared(other)
        return NotImplemented

    def __hash__(self: Any) -> int:
        return hash(hashed(self))

    @reprlib.recursive_repr()
    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({inner})"

    return {"__eq__": __eq__, "__hash__": __hash__, "__repr__": __repr__}


def _order_methods(fields: tuple[Field, ...]) -> dict[str, Callable[..., Any]]:
    """`<`, `<=`, `>`, `>=` between instances of the same class, as tuples of the compared fields."""
    compared = _tuple_of([f.name for f in fields if f.compare])

    def method(name: str, test: Callable[[Any, Any], bool]) -> Callable[..., Any]:
        def compare(self: Any, other: Any) -> Any:
            if other.__class__ is self.__class__:
                return test(compared(self), compared(other))
            return NotImplemented

        compare.__name__ = name
        return compare

    return {name: method(name, test) for name, test in (("__lt__", operator.lt), ("__le__", operator.le),
                                                         ("__gt__", operator.gt), ("__ge__", operator.ge))}


def replace(obj: T, /, **changes: Any) -> T:
    """`dataclasses.replace` for records, about three times cheaper (the readers copy a few records per
    value they mark); any other dataclass goes to dataclasses.replace. Same rules: every init field is
    passed on, an init=False field is made again by __init__ and cannot be changed."""
    names: tuple[str, ...] | None = type(obj).__dict__.get(_INIT_NAMES)
    if names is None:
        import dataclasses

        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    # every field's getattr in one C call (its tuple has one value more: zip stops at the names)
    kwargs = dict(zip(names, type(obj).__dict__[_INIT_VALUES](obj), strict=False))
    for name in changes:
        if name not in kwargs:
            raise TypeError(f"{type(obj).__name__}.{name} is not a field __init__ takes")
    return type(obj)(**{**kwargs, **changes})


def _values_of(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """obj -> (getattr(obj, name) for each name) as a tuple (attrgetter gives a bare value for one name)."""
    if not names:
        return lambda obj: ()
    return operator.attrgetter(*names, names[0])  # one name more: always a tuple; zip stops at the names


def _init(cls: type, fields: tuple[Field, ...]) -> Callable[..., None]:
    """The class's `__init__`: parameters in field order with their defaults, every value stored with
    `object.__setattr__` (the class refuses assignment); then, only for the classes that have them,
    factories for arguments not given, init=False fields and `__post_init__`.

    Why not compiled per class: compiling every class's `__init__` was a large part of a one-file run,
    and most classes make a few instances in such a run. So the first `__init__` is a copy of one shared
    body, renamed per class (`CodeType.replace`: Python binds the arguments), that stores what
    `locals()` holds; after `HOT` instances the class gets a compiled body as fast per call as the
    one dataclasses writes, shared by every class with as many parameters.
    """
    params = [f for f in fields if f.init]
    if any(f.name.startswith(_OWN) or f.name == "self" for f in params):
        raise TypeError(f"{cls.__qualname__}: `self` and field names starting with {_OWN!r} are kept for record")
    finish = _finish(cls, fields)
    defaults = tuple(f.default if f.default_factory is MISSING else MISSING
                     for f in params if f.default is not MISSING
                     or f.default_factory is not MISSING) or None
    names = ("self", *(f.name for f in params))

    def fast() -> Callable[..., None]:
        space: dict[str, Any] = {f"{_OWN}set": object.__setattr__, f"{_OWN}finish": finish}
        space.update((f"{_OWN}n{i}", name) for i, name in enumerate(names[1:]))
        direct = _plain_attributes(cls, names[1:])
        code = _template(len(params), finish is not None, direct)
        code = code.replace(co_varnames=names + ((f"{_OWN}d",) if direct else ()))
        return _named(cls, FunctionType(code, space, "__init__", defaults))

    if len(params) >= _GENERIC_SIZE:
        return fast()
    made = 0

    def store(self: Any, values: dict[str, Any]) -> None:
        nonlocal made
        del values["self"]
        for name, value in values.items():
            object.__setattr__(self, name, value)
        if finish is not None:
            finish(self)
        made += 1
        if (made == HOT or made == 1 and _compiled(len(params), finish is not None, cls, names[1:])) \
                and cls.__dict__.get("__init__") is first:
            type.__setattr__(cls, "__init__", fast())

    # exactly the class's own locals: `locals()` also visits every local a body declares and deletes each unbound
    # one from its dict (a KeyError raised and cleared per name, ~20,000 instructions a call with 36 spare names)
    code = _generic().replace(co_argcount=len(names), co_varnames=names, co_nlocals=len(names))
    first = _named(cls, FunctionType(code, {f"{_OWN}store": store, "locals": locals}, "__init__", defaults))
    return first


HOT = 100  # instances a class makes before its __init__ is compiled (at once when its body is compiled already)
_GENERIC_SIZE = 40  # parameters of the shared first body (a class with more is compiled at once)


def _named(cls: type, init: Callable[..., None]) -> Callable[..., None]:
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _generic() -> CodeType:
    """The shared first `__init__`: up to `_GENERIC_SIZE` parameters, of which a copy keeps its class's own
    (its body reads `self` alone, so a copy may declare fewer locals), and one call storing them. Written out
    below rather than compiled: the first compile in a process is the dear one."""
    return _generic_init.__code__


def _generic_init(self, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15,  # type: ignore[no-untyped-def]
                  a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30, a31, a32,
                  a33, a34, a35, a36, a37, a38, a39) -> None:
    _kvlint_record_store(self, locals())  # type: ignore[name-defined]  # noqa: F821  # a global of each copy


def _finish(cls: type, fields: tuple[Field, ...]) -> Callable[[Any], None] | None:
    """What `__init__` does after storing its arguments, or None when nothing: a factory's value for an
    argument not given, an init=False field's factory or default, then `__post_init__`."""
    missing = MISSING
    given = [(f.name, f.default_factory) for f in fields if f.init and f.default_factory is not missing]
    made = [(f.name, f.default_factory if f.default_factory is not missing else _constant(f.default))
            for f in fields if not f.init and (f.default_factory is not missing or f.default is not missing)]
    post_init = hasattr(cls, "__post_init__")
    if not (given or made or post_init):
        return None
    store = object.__setattr__

    def finish(self: Any) -> None:
        for name, factory in given:
            if getattr(self, name) is missing:
                store(self, name, factory())
        for name, make in made:
            store(self, name, make())
        if post_init:
            self.__post_init__()

    return finish


def _constant(value: Any) -> Callable[[], Any]:
    return lambda: value


def _plain_attributes(cls: type, names: tuple[str, ...]) -> bool:
    """Whether every field is a plain entry of the instance's `__dict__` (no slot, no data descriptor of that
    name on the class): then `__init__` writes the dict itself, as object.__setattr__ would, without a call
    per field (the records a large run makes by the hundred thousand: steps, spans, tokens, fields)."""
    if not cls.__dictoffset__:
        return False
    return not any(hasattr(type(getattr(cls, name, None)), "__set__") for name in names)


def _compiled(count: int, finish: bool, cls: type, names: tuple[str, ...]) -> bool:
    """Whether the compiled body a class would get is compiled already (another class of the same shape was
    hot): then the class takes it at its first instance, since the shared first body (a `locals()` dict and a
    Python loop storing it) is several times dearer per instance and the compile, its reason, is paid."""
    return (count, finish, _plain_attributes(cls, names)) in _TEMPLATES


_TEMPLATES: dict[tuple[int, bool, bool], CodeType] = {}  # (parameters, finish, direct) -> compiled body


def _template(count: int, finish: bool, direct: bool = False) -> CodeType:
    """The compiled `__init__` for `count` parameters named a0, a1, ... (renamed per class); `direct`: stored
    into the instance's `__dict__` (see _plain_attributes), else through object.__setattr__. Compiled once per
    shape."""
    key = (count, finish, direct)
    found = _TEMPLATES.get(key)
    if found is None:
        found = _TEMPLATES[key] = _compile_template(count, finish, direct)
    return found


def _compile_template(count: int, finish: bool, direct: bool) -> CodeType:
    own = _OWN
    if direct:
        lines = [f"    {own}d = self.__dict__"] + [f"    {own}d[{own}n{i}] = a{i}" for i in range(count)]
    else:
        lines = [f"    {own}set(self, {own}n{i}, a{i})" for i in range(count)]
    if finish:
        lines.append(f"    {own}finish(self)")
    params = ", ".join(["self"] + [f"a{i}" for i in range(count)])
    source = f"def __init__({params}):\n" + ("\n".join(lines) or "    pass") + "\n"
    space: dict[str, Any] = {}
    exec(compile(source, "<record __init__>", "exec"), space)  # our own source, from a count only
    code: CodeType = space["__init__"].__code__
    return code


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _tuple_of(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """A function giving the tuple of those attributes (attrgetter gives a bare value for one name)."""
    if len(names) > 1:
        return operator.attrgetter(*names)
    if names:
        one = operator.attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _trigger(name: str) -> Callable[..., Any]:
    """A stand-in for method `name` that makes the class a dataclass, then calls the real method."""

    def first_use(self: Any, *args: Any, **kwargs: Any) -> Any:
        cls = type(self)
        materialise(cls)
        method: Callable[..., Any] | None = getattr(cls, name, None)
        if method is None:  # only __setstate__ can be absent: a dataclass without slots keeps __dict__
            return _restore(self, *args)
        return method(self, *args, **kwargs)

    first_use.__name__ = name
    return first_use


def _restore(self: Any, state: Any) -> None:
    """What pickle does for an instance with no __setstate__: a dict, or a (dict, slots) pair."""
    own, slots = state if isinstance(state, tuple) else (state, None)
    if own:
        self.__dict__.update(own)
    for key, value in (slots or {}).items():
        object.__setattr__(self, key, value)
