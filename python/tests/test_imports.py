# SPDX-License-Identifier: Apache-2.0
"""The package's modules import each other without a circle: every import
of a module of the package, at its top or inside a function (a lazy
import hides a circle without removing it), is an edge, and the graph has
no cycle."""

import ast
import os

import clgather

PACKAGE = os.path.dirname(os.path.abspath(clgather.__file__))


def _modules():
    return sorted(name[:-3] for name in os.listdir(PACKAGE)
                  if name.endswith(".py"))


def _imports(module, modules):
    """The package modules that `module` imports anywhere in its text."""
    with open(os.path.join(PACKAGE, module + ".py"), encoding="utf-8") as f:
        tree = ast.parse(f.read(), module)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 0 and not (node.module or "").startswith(
                    "clgather"):
                continue
            if node.level > 1:
                raise AssertionError("%s: import above the package" % module)
            base = (node.module or "") if node.level else \
                node.module[len("clgather"):].lstrip(".")
            if base:
                found.add(base.split(".")[0])
            else:  # from . import a, b: modules, or names of __init__
                for alias in node.names:
                    found.add(alias.name if alias.name in modules
                              else "__init__")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "clgather":
                    found.add(parts[1] if len(parts) > 1 else "__init__")
    found.discard(module)
    return found & set(modules)


def _cycle(graph):
    """One cycle of the graph as a list of nodes (first == last), or
    None."""
    state = {}  # node -> "open" while on the path, "done" after

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, path + [nxt])
                if found:
                    return found
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [node])
            if found:
                return found
    return None


def test_cycle_finder():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c",
                                                         "a"]
    assert _cycle({"a": {"b"}, "b": {"b2"}, "b2": {"b"}}) == ["b", "b2",
                                                           "b"]


def test_no_import_circle_in_the_package():
    modules = _modules()
    graph = {m: _imports(m, modules) for m in modules}
    # The parse sees the imports the package is made of, lazy ones too.
    assert {"_errors", "_host", "_lib", "_pyopencl"} <= graph["_context"]
    assert "_lib" in graph["_errors"] and "_context" in graph["__init__"]
    assert _cycle(graph) is None, " -> ".join(_cycle(graph))
