# SPDX-License-Identifier: Apache-2.0
"""The public header, read as data: its functions, structs, enums, integer
macros and X-macro tables, for the binding to be generated from.

The header is run through the C preprocessor (``cc -E -dD``, so that the
tables' expansions, such as the named operator functions, are what the
compiler sees) and only the lines that come from the header itself are
read. Types from other headers (OpenCL's cl_mem, cl_int, ...) are followed
through their typedefs in the same output to a pointer or a C integer.

Run at build time by python/CMakeLists.txt, which writes the result as the
module ``_api`` (``python _cheader.py --cc CC -I DIR ... HEADER OUT``);
imported by ``_lib`` only in a source tree that CMake has not configured,
and by the tests. Needs nothing but the standard library and a C
compiler that takes ``-E -dD`` (GCC, Clang). See docs/python.md, "How the
binding follows the header".
"""

import os
import pprint
import re
import shutil
import subprocess
import sys

# Integer and character types the binding maps to ctypes, as the
# preprocessor leaves them (after the typedefs of other headers).
SCALARS = {
    "void", "char", "signed char", "unsigned char", "short",
    "unsigned short", "int", "unsigned int", "long", "unsigned long",
    "long long", "unsigned long long", "float", "double", "size_t",
    "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t",
    "int64_t", "uint64_t", "intptr_t", "uintptr_t",
}
_SPELLINGS = {"unsigned": "unsigned int", "signed": "int",
              "signed int": "int", "long int": "long",
              "unsigned long int": "unsigned long",
              "long long int": "long long",
              "unsigned long long int": "unsigned long long",
              "short int": "short", "unsigned short int": "unsigned short"}
_QUALIFIERS = {"const", "volatile", "restrict", "__restrict", "extern"}


def find_cc(cc=None):
    """The C compiler: `cc`, else $CC, else cc, gcc or clang on PATH."""
    for name in (cc, os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and (os.path.isfile(name) or shutil.which(name.split()[0])):
            return name
    raise RuntimeError("no C compiler found (set CC): the header is read "
                       "through the C preprocessor")


def preprocess(header, cc=None, includes=()):
    """(the header's own lines, the whole output) of ``cc -E -dD``."""
    header = os.path.abspath(header)
    cc = find_cc(cc)
    command = [cc] if os.path.isfile(cc) else cc.split()
    command += ["-E", "-dD", "-x", "c"]
    command += ["-I" + d for d in includes if d]
    command += ["-I" + os.path.dirname(os.path.dirname(header)), header]
    result = subprocess.run(command, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, universal_newlines=True)
    if result.returncode != 0:
        raise RuntimeError("%s failed (%d):\n%s" % (" ".join(command),
                                                    result.returncode,
                                                    result.stderr))
    own, keep = [], False
    name = os.path.basename(header)
    for line in result.stdout.splitlines():
        marker = re.match(r'#\s*(?:line\s+)?\d+\s+"([^"]*)"', line)
        if marker:
            keep = os.path.basename(marker.group(1)) == name
            continue
        if keep:
            own.append(line)
    return "\n".join(own), result.stdout


def _strip_attributes(text):
    """The text without GNU __attribute__((...)) and __declspec(...)."""
    out, i = [], 0
    pattern = re.compile(r"\b(__attribute__|__declspec)\s*\(")
    while True:
        m = pattern.search(text, i)
        if not m:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i:m.start()])
        depth, j = 1, m.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        i = j


def _split(text, sep):
    """text split at `sep` outside (), [] and {}, and outside quotes."""
    parts, depth, start, quote = [], 0, 0, None
    for i, c in enumerate(text):
        if quote:
            if c == quote and text[i - 1] != "\\":
                quote = None
        elif c in "\"'":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def _evaluate(expr, names):
    """An integer constant expression over literals and `names`."""
    expr = expr.strip()
    expr = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\b", r"\1", expr)
    if not re.fullmatch(r"[\w\s()+\-*/%<>|&~^]*", expr):
        raise ValueError(expr)
    for word in set(re.findall(r"[A-Za-z_]\w*", expr)):
        if word not in names:
            raise ValueError(expr)
    expr = expr.replace("/", "//")
    return int(eval(expr, {"__builtins__": {}}, dict(names)))


class _Types:
    """Names a type as the binding needs it: a scalar ("int64_t"), one of
    the header's ("enum clg_dtype", "struct clg_tensor", "opaque
    clg_context") or "handle" (another header's pointer typedef, cl_mem),
    followed by one "*" per level of pointer."""

    def __init__(self, everything, enums, structs, opaque):
        self.everything = everything
        self.enums, self.structs, self.opaque = enums, structs, opaque
        self.typedefs = {}

    def _typedef(self, name):
        if name not in self.typedefs:
            m = re.search(r"\btypedef\s+([^;{}]*?)\s*\b%s\s*;" % name,
                          _strip_attributes(self.everything))
            self.typedefs[name] = m.group(1) if m else None
        return self.typedefs[name]

    def base(self, words):
        """The spec of a declaration's base type (qualifiers dropped)."""
        name = " ".join(w for w in words.split() if w not in _QUALIFIERS)
        name = _SPELLINGS.get(name, name)
        if name in SCALARS:
            return name
        if name.startswith(("enum ", "struct ")):
            name = name.split()[1]
        if name in self.enums:
            return "enum " + name
        if name in self.structs:
            return "struct " + name
        if name in self.opaque:
            return "opaque " + name
        target = self._typedef(name)
        if target is None:
            raise ValueError("unknown type %r" % name)
        if "*" in target:
            return "handle" + "*" * (target.count("*") - 1)
        return self.base(target)

    def declaration(self, text, named=True):
        """(spec, C spelling, name, array length or None) of one
        declaration such as "const clg_tensor *data" or "char name[128]"."""
        text = " ".join(text.split())
        length = None
        m = re.fullmatch(r"(.*?)\s*\[([^\]]*)\]", text)
        if m:
            text, length = m.group(1), m.group(2)
        m = re.fullmatch(r"(.*?)([\s*]*)\b([A-Za-z_]\w*)", text) if named \
            else None
        if m and m.group(1).strip() and m.group(3) not in _QUALIFIERS:
            words, stars, name = m.group(1), m.group(2), m.group(3)
        else:
            words, stars, name = text, "", None
        pointers = stars.count("*") + words.count("*")
        words = " ".join(words.replace("*", " ").split())
        spec = self.base(words) + "*" * pointers
        spelling = words + (" " + "*" * pointers if pointers else "")
        return spec, spelling, name, length


def parse(header, cc=None, includes=()):
    """The header as data: a dict of defines ({macro: int}), tables
    ({macro: [[arg, ...] per row]}), enums ({name: [[enumerator, value],
    ...]}), structs ({name: [[field, spec, C spelling, length], ...]}),
    opaque (struct names) and functions ({name: [[return spec, C
    spelling], [[spec, C spelling, parameter], ...]]})."""
    own, everything = preprocess(header, cc, includes)
    api = {"defines": {}, "tables": {}, "enums": {}, "structs": {},
           "opaque": [], "functions": {}}
    code, macros = [], {}
    for line in own.splitlines():
        m = re.match(r"\s*#\s*define\s+(\w+)(\([^)]*\))?\s*(.*)", line)
        if m:
            macros[m.group(1)] = (m.group(2), m.group(3))
        elif not line.lstrip().startswith("#"):
            code.append(line)
    for name, (args, body) in macros.items():
        if args is None:
            try:
                api["defines"][name] = _evaluate(body, api["defines"])
            except (ValueError, SyntaxError, ZeroDivisionError):
                pass
    for name, (args, body) in macros.items():
        if args == "(X)" and re.fullmatch(r"(\s*\w+\s*\(.*\))*\s*", body):
            rows = _table_rows(name, macros)
            if rows is not None:
                api["tables"][name] = rows

    statements = _split(_strip_attributes("\n".join(code)), ";")
    bodies = []
    for st in statements:
        st = " ".join(st.split())
        m = re.fullmatch(r"typedef (enum|struct) (\w+) \{(.*)\} (\w+)", st)
        if m:
            bodies.append(m.groups())
            continue
        m = re.fullmatch(r"typedef struct (\w+) (\w+)", st)
        if m:
            api["opaque"].append(m.group(2))
    for kind, _, body, name in bodies:
        if kind == "enum":
            api["enums"][name] = []
        else:
            api["structs"][name] = []
    types = _Types(everything, api["enums"], api["structs"], api["opaque"])
    for kind, _, body, name in bodies:
        if kind == "enum":
            values, value = {}, -1
            for entry in _split(body, ","):
                if not entry:
                    continue
                enumerator, _, expr = entry.partition("=")
                enumerator = enumerator.strip()
                value = _evaluate(expr, dict(api["defines"], **values)) \
                    if expr else value + 1
                values[enumerator] = value
                api["enums"][name].append([enumerator, value])
        else:
            for member in _split(body, ";"):
                if not member:
                    continue
                first, *more = _split(member, ",")
                spec, spelling, field, length = types.declaration(first)
                fields = [(spec, spelling, field, length)]
                words = first[:first.rindex(field)].rstrip(" *")
                for extra in more:
                    fields.append(types.declaration(words + " " + extra))
                for spec, spelling, field, length in fields:
                    api["structs"][name].append([
                        field, spec, spelling,
                        None if length is None else
                        _evaluate(length, api["defines"])])
    for st in statements:
        st = " ".join(st.split())
        m = re.fullmatch(r"(?!typedef\b)(.*?)\b(clg_\w+) ?\((.*)\)", st)
        if not m:
            continue
        ret = types.declaration(m.group(1), named=False)
        params = []
        for p in _split(m.group(3), ","):
            if p and p != "void":
                spec, spelling, pname, _ = types.declaration(p)
                params.append([spec, spelling, pname])
        api["functions"][m.group(2)] = [[ret[0], ret[1]], params]
    return api


def _table_rows(name, macros, depth=0):
    """The rows of an X-macro table, each a list of its arguments as text
    (quotes removed from string and character literals, integers as
    int); None for a macro that is not one."""
    args, body = macros[name]
    rows = []
    for call, inner in re.findall(r"(\w+)\s*\(((?:[^()]|\([^()]*\))*)\)",
                                  body):
        if call == "X":
            row = []
            for arg in _split(inner, ","):
                if re.fullmatch(r"-?\d+", arg):
                    arg = int(arg)
                elif re.fullmatch(r'"[^"]*"|\'.\'', arg):
                    arg = arg[1:-1]
                row.append(arg)
            rows.append(row)
        elif call in macros and macros[call][0] == "(X)" and depth < 8 \
                and inner.strip() == "X":
            more = _table_rows(call, macros, depth + 1)
            if more is None:
                return None
            rows += more
        else:
            return None
    return rows


def write(api, path, source):
    """Writes `api` as a Python module defining API."""
    text = ("# SPDX-License-Identifier: Apache-2.0\n"
            "# Generated from %s by clgather/_cheader.py at build time;\n"
            "# do not edit.\nAPI = %s\n" %
            (os.path.basename(source), pprint.pformat(api, width=78)))
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main(argv):
    cc, includes, rest = None, [], []
    args = iter(argv)
    for arg in args:
        if arg == "--cc":
            cc = next(args)
        elif arg.startswith("-I"):
            includes.append(arg[2:] or next(args))
        else:
            rest.append(arg)
    if len(rest) != 2:
        sys.stderr.write("usage: _cheader.py [--cc CC] [-I DIR]... "
                         "HEADER OUT.py\n")
        return 2
    write(parse(rest[0], cc, includes), rest[1], rest[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
