# SPDX-License-Identifier: Apache-2.0
"""The binding matches the public header, include/clgather/clgather.h, of
this tree: every public function is bound (or listed in
_lib.NOT_BOUND with a reason) with the header's parameter count and
parameter and return types of the same size, kind and signedness; every
enum value the binding uses is the header's; every public struct has the
header's size and field offsets, in the binding and in the library loaded
(clg_type_size). The header is read here on its own, with regular
expressions over the C preprocessor's output, and the C facts (sizeof,
offsetof, enum values, macros) come from a small C program compiled
with the system's C compiler against the header: nothing is taken from
the binding's own reading of it (clgather/_cheader.py). See
docs/python.md, "How the binding follows the header"."""

import ctypes
import os
import re
import shutil
import subprocess

import pytest

import clgather
from clgather import _context, _dtypes, _errors, _host, _lib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
INCLUDE = os.path.join(ROOT, "include")
HEADER = os.path.join(INCLUDE, "clgather", "clgather.h")


def _cc():
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return name
    pytest.skip("no C compiler to read the header with")


def _run(command):
    # Without a sanitizer the tests may run under (LD_PRELOAD of libasan
    # with an ASan-built library): the compiler and the probe are not
    # built for it.
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    result = subprocess.run(command, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, universal_newlines=True,
                            env=env)
    assert result.returncode == 0, "%s:\n%s" % (" ".join(command),
                                                result.stderr)
    return result.stdout


@pytest.fixture(scope="module")
def header():
    """The header's own declarations after the preprocessor: the named
    operator functions and the enums' rows expanded from their tables."""
    out = _run([_cc(), "-E", "-x", "c", "-I" + INCLUDE, HEADER])
    own, keep = [], False
    for line in out.splitlines():
        marker = re.match(r'#\s*\d+\s+"([^"]*)"', line)
        if marker:
            keep = marker.group(1).endswith("clgather.h")
        elif keep:
            own.append(line)
    return " ".join(" ".join(own).split())


def _functions(text):
    """{name: (return type, [parameter types])} of the exported functions
    (CLG_API is the visibility attribute under GCC and Clang)."""
    found = {}
    api = r'__attribute__\(\(visibility\("default"\)\)\)'
    for ret, name, params in re.findall(
            api + r"\s*([^;(]*?)\b(clg_\w+)\s*\(([^;]*?)\)\s*;", text):
        types = []
        for p in params.split(","):
            p = p.strip()
            if p and p != "void":
                m = re.fullmatch(r"(.*?[\s*])\s*([A-Za-z_]\w*)", p)
                assert m, "%s: unnamed parameter %r" % (name, p)
                types.append(m.group(1).strip())
        found[name] = (ret.strip(), types)
    return found


def _enums(text):
    """{enum: [enumerator, ...]} in the header's order."""
    enums = {}
    for name, body in re.findall(r"typedef enum (\w+) \{(.*?)\} \1 ?;",
                                 text):
        enums[name] = [e.split("=")[0].strip()
                       for e in body.split(",") if e.strip()]
    return enums


def _structs(text):
    """{struct: number of fields} of the header's typedef'd structs."""
    structs = {}
    for name, body in re.findall(r"typedef struct (\w+) \{(.*?)\} \1 ?;",
                                 text):
        structs[name] = sum(member.count(",") + 1
                            for member in body.split(";") if member.strip())
    return structs


@pytest.fixture(scope="module")
def probe(header, tmp_path_factory):
    """Runs a C program compiled against the header that prints, one
    "key value" a line: each function's return and parameter types'
    sizeof, __builtin_classify_type (1 integer, 3 enum, 5 pointer) and
    signedness; each enumerator's value; each struct's sizeof and its
    fields' offsetof (the fields as the binding names them); the integer
    macros of the binding's."""
    lines = ["#include <stddef.h>", "#include <stdio.h>",
             '#include "clgather/clgather.h"',
             "#define TYPE(key, T) do { static T v_; printf(\"%s %zu %d "
             "%d\\n\", key, sizeof(T), __builtin_classify_type(v_), "
             "(int)((T)-1 < (T)0)); } while (0)",
             "int main(void) {"]
    for name, (ret, params) in _functions(header).items():
        if ret != "void":
            lines.append('TYPE("%s.return", %s);' % (name, ret))
        for i, t in enumerate(params):
            lines.append('TYPE("%s.%d", %s);' % (name, i, t))
    for enum, names in _enums(header).items():
        lines.append('printf("sizeof.%s %%zu\\n", sizeof(%s));' %
                     (enum, enum))
        for n in names:
            lines.append('printf("%s %%lld\\n", (long long)%s);' % (n, n))
    for struct in _structs(header):
        lines.append('printf("sizeof.%s %%zu\\n", sizeof(%s));' %
                     (struct, struct))
        for field in _lib.STRUCTS[struct]._fields_:
            lines.append('printf("%s.%s %%zu\\n", offsetof(%s, %s));' %
                         (struct, field[0], struct, field[0]))
    for macro in _lib.DEFINES:
        lines.append('printf("%s %%lld\\n", (long long)(%s));' %
                     (macro, macro))
    lines += ["return 0;", "}"]
    folder = tmp_path_factory.mktemp("probe")
    source, program = folder / "probe.c", folder / "probe"
    source.write_text("\n".join(lines) + "\n")
    _run([_cc(), "-w", "-std=gnu11", "-I" + INCLUDE, str(source), "-o",
          str(program)])
    facts = {}
    for line in _run([str(program)]).splitlines():
        key, *values = line.split()
        facts[key] = [int(v) for v in values]
    return facts


def _is_pointer(t):
    return t in (ctypes.c_void_p, ctypes.c_char_p) or \
        issubclass(t, ctypes._Pointer)


def _signed(t):
    return t(-1).value < 0


def test_every_function_is_bound_or_listed(header):
    functions = _functions(header)
    assert len(functions) > 100  # the regex reads the header
    assert set(_lib.API["functions"]) == set(functions)
    assert set(_lib.NOT_BOUND) <= set(functions)
    assert all(reason for reason in _lib.NOT_BOUND.values())
    # The library loaded is this tree's: it has every function.
    assert _lib.MISSING == []
    for name in functions:
        if name in _lib.NOT_BOUND:
            continue
        fn = getattr(_lib.lib, name)
        assert fn.argtypes is not None, name


def test_every_prototype_matches(header, probe):
    enums = _enums(header)
    for name, (ret, params) in _functions(header).items():
        if name in _lib.NOT_BOUND:
            continue
        fn = getattr(_lib.lib, name)
        assert len(fn.argtypes) == len(params), name
        pairs = [("%s.%d" % (name, i), t, c) for i, (t, c) in
                 enumerate(zip(fn.argtypes, params))]
        if ret == "void":
            assert fn.restype is None, name
        else:
            pairs.append((name + ".return", fn.restype, ret))
        for key, t, c in pairs:
            size, kind, signed = probe[key]
            assert ctypes.sizeof(t) == size, key
            assert kind in (1, 3, 5), key  # integers, enums, pointers only
            assert _is_pointer(t) == (kind == 5), key
            # An enum's signedness is the compiler's choice (GCC makes
            # clg_status unsigned); its values fit an int either way.
            if kind == 1 and c not in enums:
                assert _signed(t) == bool(signed), key


def test_every_struct_matches(header, probe):
    structs = _structs(header)
    assert {"clg_tensor", "clg_cl_tensor", "clg_call",
            "clg_cache_info"} <= set(structs)
    assert set(_lib.STRUCTS) == set(structs)
    for name, count in structs.items():
        cls = _lib.STRUCTS[name]
        assert len(cls._fields_) == count, name
        size = probe["sizeof." + name][0]
        assert ctypes.sizeof(cls) == size, name
        assert _lib.lib.clg_type_size(name.encode()) == size, name
        for field in cls._fields_:
            assert getattr(cls, field[0]).offset == \
                probe["%s.%s" % (name, field[0])][0], (name, field[0])
    # The names the binding uses are those structs.
    assert _lib.Tensor is _lib.STRUCTS["clg_tensor"]
    # The clg_call the binding passes is the header's through the last
    # field it sets, each at the header's offset.
    full = _lib.STRUCTS["clg_call"]
    assert _lib.Call._fields_ == full._fields_[:len(_lib.Call._fields_)]
    assert _lib.Call._fields_[-1][0] == _lib.CALL_LAST_FIELD
    for field in _lib.Call._fields_:
        assert getattr(_lib.Call, field[0]).offset == \
            probe["clg_call." + field[0]][0]
    assert ctypes.sizeof(_lib.Call) <= ctypes.sizeof(full)
    assert _lib.lib.clg_run.argtypes[1]._type_ is _lib.Call
    assert issubclass(_lib.CacheInfo, _lib.STRUCTS["clg_cache_info"])
    assert ctypes.sizeof(_lib.CacheInfo) > probe["sizeof.clg_cache_info"][0]
    assert _lib.lib.clg_type_size(b"clg_context") == 0
    assert _lib.lib.clg_type_size(b"no_such_type") == 0
    assert _lib.lib.clg_type_size(None) == 0


def test_every_enum_matches(header, probe):
    enums = _enums(header)
    assert set(_lib.API["enums"]) == set(enums)
    for name, enumerators in enums.items():
        assert [row[0] for row in _lib.API["enums"][name]] == enumerators
        for enumerator, value in _lib.API["enums"][name]:
            assert probe[enumerator] == [value], enumerator
        # An enum is an int, as the binding passes it.
        assert probe["sizeof." + name][0] == ctypes.sizeof(ctypes.c_int)
        assert _lib.lib.clg_type_size(name.encode()) == \
            probe["sizeof." + name][0]

    def values(prefix):
        return {e[len(prefix):]: probe[e][0]
                for e in enums[[n for n in enums if enums[n][0].startswith(
                    prefix)][0]]}

    # The tables the binding asks of the library are the header's.
    statuses = values("CLG_STATUS_")
    assert _lib.lib.clg_status_count() == len(statuses)
    assert {row[0]: row[1] for row in _errors._STATUS_TABLE} == \
        {k: v for k, v in statuses.items() if k != "OK"}
    for name, value, cls_name, _ in _errors._STATUS_TABLE:
        assert getattr(clgather, cls_name).status == value
    assert set(_errors._BUILTIN_BASES) <= set(statuses)
    dtypes = values("CLG_DTYPE_")
    assert {k: v[0] for k, v in _dtypes.DTYPES.items()} == \
        {k: v for k, v in dtypes.items() if k != "UNDEFINED"}
    assert _lib.lib.clg_dtype_count() == max(dtypes.values()) + 1
    assert _lib.operators() == {
        _lib.text(_lib.lib.clg_op_name(v)): v
        for v in values("CLG_OP_").values()}
    for word, value in values("CLG_OOB_").items():
        assert _host.OOB_MODES[value] == word.lower()
    assert len(_host.OOB_MODES) == len(values("CLG_OOB_"))
    for name, value in values("CLG_PARAM_").items():
        assert _lib.PARAM_NAMES[value] == name.lower()
    assert len(_lib.PARAM_NAMES) == len(values("CLG_PARAM_"))
    assert _context._DEVICE_TYPES == {
        v: k.lower() for k, v in values("CLG_DEVICE_TYPE_").items()}


def test_dtype_table_matches(probe):
    # Each row of CLG_DTYPE_TABLE: the library's name, size and kind, and
    # the binding's.
    rows = _lib.API["tables"]["CLG_DTYPE_TABLE"]
    assert len(rows) == len(_dtypes.DTYPES) == 16
    for name, number, size, kind in rows:
        if size == "sizeof(clg_string)":
            size = probe["sizeof.clg_string"][0]
        assert _dtypes.DTYPES[name] == (number, size, kind)
        assert _lib.lib.clg_dtype_kind(number) == ord(kind)
        assert _lib.lib.clg_dtype_size(number) == size
        assert _lib.text(_lib.lib.clg_dtype_name(number)) == name
    assert _lib.lib.clg_dtype_kind(0) == 0
    assert _lib.lib.clg_dtype_kind(_lib.lib.clg_dtype_count()) == 0


def test_macros_match(probe):
    assert {"CLG_MAX_RANK", "CLG_CACHE_PATH_MAX"} <= set(_lib.DEFINES)
    for macro, value in _lib.DEFINES.items():
        assert probe[macro] == [value], macro
    assert _lib.MAX_RANK == probe["CLG_MAX_RANK"][0]
