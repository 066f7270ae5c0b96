"""Load an engine's own pure-Python sizing modules from an unzipped wheel, without installing the engine.

The engines import GPU kernels, tokenizers and servers at module level. The harness loads only the
modules it asks for, from the wheel's files; anything those modules import that is not on this
interpreter (or fails to import without a GPU) becomes an inert stand-in (`Anything`). The sizing code
itself always runs for real: `require()` refuses a module that had to be replaced by a stand-in.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import traceback
import types
from pathlib import Path
from typing import Any

DEBUG = False


class Anything:
    """Stands in for any name, call, attribute, base class or decorator the sizing code never needs."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __init_subclass__(cls, **kwargs: Any) -> None:
        pass

    def __class_getitem__(cls, item: Any) -> type:
        return cls

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Anything()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]  # used as a decorator: keep the decorated function
        return Anything()

    def __getitem__(self, item: Any) -> Any:
        return Anything()

    def __iter__(self) -> Any:
        return iter(())

    def __bool__(self) -> bool:
        return False

    def __mro_entries__(self, bases: tuple) -> tuple:
        return (Anything,)

    def __or__(self, other: Any) -> Any:
        return Anything()

    __ror__ = __or__


class StubModule(types.ModuleType):
    """A module whose every attribute is an Anything (so `from x import A, B` works)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.__path__: list[str] = []  # a package, so submodules resolve to stubs too
        self.__stub__ = True

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        value = Anything()
        setattr(self, name, value)
        return value


class _StubLoader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return StubModule(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        pass


class _Finder(importlib.abc.MetaPathFinder):
    """Engine modules load from the wheel; a wheel module that fails, or a missing dependency, is a stub."""

    def __init__(self, package: str, root: Path, stub_always: tuple[str, ...]) -> None:
        self.package, self.root, self.stub_always = package, root, stub_always
        self.stubbed: list[str] = []

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if any(name == s or name.startswith(s + ".") for s in self.stub_always):
            return self._stub(name)
        if name == self.package or name.startswith(self.package + "."):
            rel = Path(*name.split("."))
            for candidate in (self.root / rel / "__init__.py", self.root / rel.with_suffix(".py")):
                if candidate.is_file():
                    is_pkg = candidate.name == "__init__.py"
                    if name == self.package:  # never run the package's own __init__ (it starts the engine)
                        spec = importlib.machinery.ModuleSpec(name, _EmptyPackage(), is_package=True)
                        spec.submodule_search_locations = [str(candidate.parent)]
                        return spec
                    loader = _SafeLoader(name, str(candidate), self)
                    spec = importlib.util.spec_from_file_location(
                        name, candidate, loader=loader,
                        submodule_search_locations=[str(candidate.parent)] if is_pkg else None)
                    return spec
            return self._stub(name)
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            try:
                found = finder.find_spec(name, path, target)
            except (ImportError, AttributeError, ValueError):
                found = None
            if found is not None:
                return None  # importable for real: let the normal machinery do it
        if name.split(".")[0] in sys.stdlib_module_names or not _imported_by(self.package):
            return None  # optional imports of other libraries: their ImportError is what the caller expects
        return self._stub(name)

    def _stub(self, name: str) -> importlib.machinery.ModuleSpec:
        self.stubbed.append(name)
        return importlib.machinery.ModuleSpec(name, _StubLoader(), is_package=True)


def _imported_by(package: str) -> bool:
    """Whether the import statement being run sits in the engine's own code (not torch's, not sympy's)."""
    frame = sys._getframe(2)
    while frame is not None:
        file = frame.f_code.co_filename
        if not file.startswith("<frozen") and file != __file__:
            name = str(frame.f_globals.get("__name__", ""))
            return name == package or name.startswith(package + ".")
        frame = frame.f_back
    return False


class _EmptyPackage(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        pass


class _SafeLoader(importlib.machinery.SourceFileLoader):
    """Run the wheel's module; if it cannot run here (a GPU-only import, a missing kernel), leave a stub."""

    def __init__(self, name: str, path: str, finder: _Finder) -> None:
        super().__init__(name, path)
        self.finder = finder

    def exec_module(self, module: types.ModuleType) -> None:
        try:
            super().exec_module(module)
        except Exception as exc:  # noqa: BLE001 - any failure means "not needed for sizing, stub it"
            if DEBUG:
                traceback.print_exc()
            self.finder.stubbed.append(f"{module.__name__} ({type(exc).__name__}: {exc})")
            stub = StubModule(module.__name__)
            stub.__dict__.update({k: v for k, v in module.__dict__.items() if not k.startswith("__")})
            sys.modules[module.__name__] = stub


def install(package: str, root: Path, stub_always: tuple[str, ...] = ()) -> _Finder:
    """Put the wheel's `package` (unzipped under root) first on the import path, with stand-ins."""
    finder = _Finder(package, root, stub_always)
    sys.meta_path.insert(0, finder)
    return finder


def require(name: str) -> types.ModuleType:
    """Import an engine module for real; a stand-in here would make the comparison meaningless."""
    module = importlib.import_module(name)
    if getattr(module, "__stub__", False):
        raise RuntimeError(f"{name} could not be loaded from the wheel; the harness needs it for real")
    return module


def prepare_transformers() -> None:
    """When transformers is installed (SGLang's get_config and config classes need it), resolve the lazy names
    SGLang's config modules import at module level before the stand-ins are on the import path (under them they
    raise, and the config classes, Dots3Config & co., would be stand-ins), and let AutoConfig.register skip a
    config class whose own module could not load here (a stand-in is not a class)."""
    try:
        import transformers
        import transformers.models.auto.tokenization_auto as tokenization_auto
    except ImportError:
        return
    for name in ("AutoFeatureExtractor", "AutoProcessor", "AutoTokenizer", "GenerationMixin", "ProcessorMixin"):
        getattr(transformers, name)
    _ = tokenization_auto.TOKENIZER_MAPPING
    register = transformers.AutoConfig.register

    def tolerant_register(model_type: str, config: Any, exist_ok: bool = False) -> None:
        if isinstance(config, type):
            register(model_type, config, exist_ok=True)

    transformers.AutoConfig.register = staticmethod(tolerant_register)  # type: ignore[method-assign]
