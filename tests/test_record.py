"""`@record` behaves as `@dataclass(frozen=True)` does, whichever method is the class's first use."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kvlint.record import HOT, FrozenInstanceError, asdict, field, fields, materialise, record, replace

SHAPES = """
    a: int
    b: str = "x"
    c: list[int] = field(default_factory=list, hash=False)
    d: float = field(default=0.5, compare=False)
    e: tuple[int, ...] = field(default=(), hash=False, repr=False)
    f: dict[str, int] = field(default_factory=dict, init=False, compare=False)
"""


def _pair() -> tuple[type, type]:
    """The same class body made by `@record` and by `@dataclass(frozen=True)`."""
    space: dict = {"field": dataclasses.field, "record": record, "dataclass": dataclasses.dataclass}
    body = textwrap.indent(textwrap.dedent(SHAPES), "    ")
    exec(f"@record\nclass Lazy:\n{body}\n@dataclass(frozen=True)\nclass Eager:\n{body}", space)
    return space["Lazy"], space["Eager"]


@pytest.mark.parametrize("args, kwargs", [((1,), {}), ((2, "y", [3]), {"d": 1.5, "e": (4,)}), ((), {"a": 0})])
def test_same_values_as_a_frozen_dataclass(args: tuple, kwargs: dict) -> None:
    lazy_cls, eager_cls = _pair()
    lazy, eager = lazy_cls(*args, **kwargs), eager_cls(*args, **kwargs)
    assert dataclasses.asdict(lazy) == dataclasses.asdict(eager)
    assert hash(lazy) == hash(eager)
    assert repr(lazy).replace("Lazy", "Eager") == repr(eager)
    assert [f.name for f in dataclasses.fields(lazy)] == [f.name for f in dataclasses.fields(eager)]


def test_equality_follows_compared_fields_and_class() -> None:
    lazy_cls, eager_cls = _pair()
    assert lazy_cls(1, d=9.0) == lazy_cls(1, d=1.0)  # d is compare=False
    assert lazy_cls(1) != lazy_cls(2)
    assert lazy_cls(1) != eager_cls(1)  # different classes are never equal
    assert hash(lazy_cls(1, e=(1,))) == hash(lazy_cls(1, e=(2,)))  # e is hash=False


def test_defaults_are_fresh_and_init_false_fields_are_set() -> None:
    lazy_cls, _ = _pair()
    one, two = lazy_cls(1), lazy_cls(1)
    assert one.c is not two.c and one.f == {} and one.f is not two.f
    with pytest.raises(TypeError):
        lazy_cls(1, f={})  # init=False: not a parameter


def test_frozen() -> None:
    lazy_cls, _ = _pair()
    value = lazy_cls(1)
    with pytest.raises(FrozenInstanceError):
        value.a = 2
    with pytest.raises(FrozenInstanceError):
        del value.a
    assert dataclasses.replace(value, a=3).a == 3


def test_restored_before_first_instantiation() -> None:
    """pickle and copy make an instance without __init__; eq, hash and repr must still be by value."""
    lazy_cls, _ = _pair()
    made = object.__new__(lazy_cls)
    made.__setstate__({"a": 1, "b": "x", "c": [], "d": 0.5, "e": (), "f": {}})
    assert made == lazy_cls(1) and hash(made) == hash(lazy_cls(1))
    assert copy.deepcopy(made) == made and copy.copy(made) == made


def test_unpickled_in_a_process_that_never_made_one() -> None:
    """The --jobs parent unpickles workers' records of classes it never instantiated itself."""
    from kvlint.budget import Step  # a record the child below has not used when it unpickles

    blob = pickle.dumps([Step("pool", "a - b", 3, "B"), Step("pool", "a - b", 3, "B")])
    code = (
        "import pickle, sys\n"
        "from kvlint.budget import Step\n"
        "one, two = pickle.loads(sys.stdin.buffer.read())\n"  # eq and hash before any Step() is made
        "print(one == two, len({one, two}), repr(one))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], input=blob, capture_output=True, check=True).stdout
    assert out.decode().strip() == "True 1 Step(name='pool', formula='a - b', value=3, unit='B', estimated=False)"


def test_class_body_methods_are_kept() -> None:
    @record
    class Custom:
        a: int

        def __eq__(self, other: object) -> bool:
            return True

        def __repr__(self) -> str:
            return "custom"

    assert Custom(1) == Custom(2) and repr(Custom(1)) == "custom"
    assert hash(Custom(1)) == hash((1,))  # as dataclasses: a body __eq__ still gets the fields' hash

    @record
    class OwnHash:
        a: int

        def __hash__(self) -> int:
            return 7

    assert hash(OwnHash(1)) == 7


def test_inherited_fields_come_first() -> None:
    @record
    class Base:
        a: int
        b: int = 2

    @record
    class Child(Base):
        c: int = 3

    child = Child(1)  # the child's first use makes the base too
    assert (child.a, child.b, child.c) == (1, 2, 3)
    assert child != Base(1, 2) and Base(1) == Base(1, 2)


def test_post_init_runs() -> None:
    @record
    class Checked:
        a: int

        def __post_init__(self) -> None:
            if self.a < 0:
                raise ValueError("negative")

    with pytest.raises(ValueError):
        Checked(-1)


def test_fields_of_a_class_never_used_are_made_when_asked() -> None:
    @record
    class Unused:
        a: int
        b: list = field(default_factory=list)

    assert [f.name for f in fields(Unused)] == ["a", "b"]  # ours, no dataclasses needed
    real = dataclasses.fields(Unused)  # dataclasses' own Field objects, made on demand
    assert [(f.name, f.default_factory) for f in real] == [("a", dataclasses.MISSING), ("b", list)]
    assert dataclasses.is_dataclass(Unused) and dataclasses.asdict(Unused(1)) == {"a": 1, "b": []}


def test_a_check_never_imports_dataclasses() -> None:
    code = ("import sys; from kvlint.cli import main; main(['check', '--exit-zero', 'examples']); "
            "print(sorted(m for m in ('dataclasses', 'inspect', 'click') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True,
                         cwd=Path(__file__).resolve().parent.parent)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_asdict_and_replace_match_dataclasses() -> None:
    lazy_cls, eager_cls = _pair()
    nested = lazy_cls(1, "y", [2], e=(lazy_cls(3),))
    assert asdict(nested) == dataclasses.asdict(nested)
    assert asdict(nested)["e"][0]["a"] == 3 and asdict(nested)["c"] is not nested.c
    assert replace(nested, a=9) == dataclasses.replace(nested, a=9)


def test_mutable_record_is_a_plain_dataclass() -> None:
    @record(frozen=False)
    class Counter:
        n: int = 0
        seen: list[str] = dataclasses.field(default_factory=list)

    @dataclasses.dataclass
    class Plain:
        n: int = 0
        seen: list[str] = dataclasses.field(default_factory=list)

    c = Counter()
    c.n += 1
    c.seen.append("a")
    assert c == Counter(1, ["a"]) and repr(c) == repr(Plain(1, ["a"])).replace("Plain", "Counter")
    with pytest.raises(TypeError):
        hash(c)  # eq without frozen: unhashable, as dataclasses makes it


def test_slotted_frozen_record_pickles() -> None:
    """Span keeps __slots__ (one per parsed node); pickle restores slots by setattr unless told otherwise."""
    from kvlint.span import Span

    one = Span("a.yaml", 1, 2, 1, 5)
    assert pickle.loads(pickle.dumps(one)) == one and copy.deepcopy(one) == one
    assert not hasattr(one, "__dict__") and Span("a", 1, 1, 1, 2) < Span("a", 1, 2, 1, 3)


def test_replace_is_dataclasses_replace() -> None:
    from kvlint.record import replace

    lazy_cls, eager_cls = _pair()
    one = lazy_cls(1, "y", [2], d=2.5)
    two = replace(one, a=5, e=(1,))
    assert dataclasses.asdict(two) == dataclasses.asdict(dataclasses.replace(eager_cls(1, "y", [2], d=2.5), a=5, e=(1,)))
    assert two.f == {} and two.f is not one.f  # init=False: made again by __init__, as dataclasses does
    with pytest.raises(TypeError):
        replace(one, f={})  # not an __init__ field
    assert replace(eager_cls(1), a=2) == eager_cls(2)  # another dataclass: dataclasses.replace


def test_init_signature_is_the_dataclass_one_and_the_body_is_shared() -> None:
    import inspect

    lazy_cls, eager_cls = _pair()
    lazy_cls(1)
    def shape(cls: type) -> list:
        return [(p.name, p.kind, p.default is inspect.Parameter.empty) for p in
                inspect.signature(cls.__init__).parameters.values()]

    assert shape(lazy_cls) == shape(eager_cls)
    space: dict = {"record": record, "field": dataclasses.field}
    exec("@record\nclass P:\n    x: int\n    y: int = 2\n    z: list = field(default_factory=list)\n"
         "@record\nclass Q:\n    u: str\n    v: str = 'v'\n    w: list = field(default_factory=list)\n", space)
    P, Q = space["P"], space["Q"]
    cold = [P(i) for i in range(HOT)]  # the shared first body until HOT instances
    assert [(p.x, p.y, p.z) for p in cold] == [(i, 2, []) for i in range(HOT)] and cold[0].z is not cold[1].z
    assert P.__init__.__code__.co_varnames[:4] == ("self", "x", "y", "z")
    q = Q("u", w=[1])
    assert (q.u, q.v, q.w) == ("u", "v", [1])
    for i in range(HOT):
        Q(str(i))
    hot_p, hot_q = P(7, z=[3]), Q("k")
    assert (hot_p.x, hot_p.y, hot_p.z, hot_q.u, hot_q.v, hot_q.w) == (7, 2, [3], "k", "v", [])
    assert P.__init__.__code__.co_code == Q.__init__.__code__.co_code  # one compiled body for both
    assert Q.__init__.__code__.co_varnames[:4] == ("self", "u", "v", "w")
    with pytest.raises(TypeError):
        P(y=3)  # x is still required
    with pytest.raises(TypeError):
        P(1, 2, [], 4)


def test_the_compiled_body_writes_the_dict_only_where_setattr_would() -> None:
    """Past HOT instances a record whose fields are plain instance attributes is stored into its __dict__
    directly; one with slots, or a data descriptor of a field's name on a base, keeps object.__setattr__ (a
    dict write would bypass the slot or the descriptor). Either way the instance is the one __init__ made."""

    class Seen:
        def __init__(self) -> None:
            self.set: list = []

        def __get__(self, obj: object, owner: type | None = None) -> object:
            return self if obj is None else obj.__dict__.get("_v")

        def __set__(self, obj: object, value: object) -> None:
            obj.__dict__["_v"] = value
            self.set.append(value)

    seen = Seen()

    class Base:
        v = seen

    @record
    class Plain:
        a: int
        b: str = "b"

    @record
    class Slotted:
        __slots__ = ("a", "b")
        a: int
        b: str

    @record
    class Described(Base):
        v: int

    for i in range(HOT + 2):
        plain, slotted, described = Plain(i), Slotted(i, "s"), Described(i)
    own = "_kvlint_record_d"
    assert own in Plain.__init__.__code__.co_varnames and vars(plain) == {"a": HOT + 1, "b": "b"}
    assert own not in Slotted.__init__.__code__.co_varnames and (slotted.a, slotted.b) == (HOT + 1, "s")
    assert own not in Described.__init__.__code__.co_varnames
    assert described.v == HOT + 1 and seen.set[-1] == HOT + 1 and len(seen.set) == HOT + 2  # through __set__
    with pytest.raises(FrozenInstanceError):
        plain.a = 0


def test_a_field_with_the_templates_own_prefix_is_refused() -> None:
    @record
    class Clash:
        _kvlint_record_set: int

    with pytest.raises(TypeError, match="kept for record"):
        Clash(1)


def test_fields_are_collected_as_dataclasses_collects_them() -> None:
    lazy_cls, eager_cls = _pair()
    lazy_cls(1)
    for name in ("name", "type", "default", "init", "repr", "hash", "compare", "kw_only"):
        assert [getattr(f, name) for f in dataclasses.fields(lazy_cls)] == \
               [getattr(f, name) for f in dataclasses.fields(eager_cls)], name
    assert lazy_cls.__match_args__ == eager_cls.__match_args__
    assert dataclasses.is_dataclass(lazy_cls) and lazy_cls.b == "x" and not hasattr(lazy_cls, "c")
    match lazy_cls(4, "z"):
        case lazy_cls(a, b):  # type: ignore[misc]
            assert (a, b) == (4, "z")


def test_a_dataclass_may_subclass_a_record() -> None:
    @record
    class Base:
        a: int

    materialise(Base)  # a dataclass reads its bases' fields when it is made

    @dataclasses.dataclass(frozen=True)
    class Child(Base):
        b: int = 2

    child = Child(1)
    assert (child.a, child.b) == (1, 2) and [f.name for f in dataclasses.fields(Child)] == ["a", "b"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        child.a = 3  # type: ignore[misc]


@pytest.mark.parametrize("body, error", [
    ("    a: int = 1\n    b: int\n", TypeError),  # non-default after default
    ("    a: list = []\n", ValueError),  # mutable default
    ("    a: ClassVar[int] = 1\n", TypeError),  # ClassVar is refused, not guessed
])
def test_what_dataclasses_refuses_is_refused(body: str, error: type) -> None:
    space: dict = {"record": record}
    exec(f"@record\nclass Bad:\n{body}", space)
    with pytest.raises(error):
        space["Bad"]()


def test_the_written_out_first_body_has_the_declared_size() -> None:
    from kvlint import record as module

    code = module._generic()
    assert code.co_argcount == module._GENERIC_SIZE + 1
    assert code.co_varnames[1:code.co_argcount] == tuple(f"a{i}" for i in range(module._GENERIC_SIZE))
