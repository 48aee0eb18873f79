"""Every public name is documented, and the type stubs describe the same names."""
import ast
import inspect
import pathlib

import voxen

STUBS = pathlib.Path(__file__).resolve().parents[1] / "voxen" / "__init__.pyi"


def doc_text(name, item):
    """The docstring without pybind11's signature lines, which every bound function has."""
    lines = (item.__doc__ or "").splitlines()
    return "\n".join(line for line in lines if line.strip() and not line.startswith(name + "("))


def public_members(obj):
    return [(name, member) for name, member in inspect.getmembers(obj) if not name.startswith("_")]


def test_every_public_name_has_a_docstring():
    assert voxen.__doc__
    # The check sees through signatures: __init__ is bound without a docstring of its own.
    assert doc_text("__init__", voxen.Mapper.__init__) == ""
    undocumented = []
    for name in voxen.__all__:
        item = getattr(voxen, name)
        if not doc_text(name, item):
            undocumented.append(name)
        if inspect.isclass(item) and not issubclass(item, BaseException):
            for member_name, member in public_members(item):
                if not doc_text(member_name, member):
                    undocumented.append(f"{name}.{member_name}")
    assert undocumented == []


def test_stubs_name_what_the_module_exports():
    tree = ast.parse(STUBS.read_text())
    stubbed = {node.name for node in tree.body if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
    assert set(voxen.__all__) <= stubbed
    for name in voxen.__all__:
        item = getattr(voxen, name)
        if inspect.isclass(item) and not issubclass(item, BaseException):
            stub = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)
            stub_members = {n.name for n in stub.body if isinstance(n, ast.FunctionDef)}
            assert {m for m, _ in public_members(item)} == stub_members - {"__init__"}, name
