#!/usr/bin/env python3
"""Turns an embedded field schema (src/api/schema/*.json) into C++ tables.

    cmake/schema_tables.py INPUT OUTPUT NAME

Writes OUTPUT, a C++ source defining `const SchemaTables& NAME()` (api/schema_tables.h): the
schema's types, fields, field specs and roots as static arrays, so that a process builds its
Schema (api/schema.h) by walking arrays instead of parsing 59 KB of JSON at every start (half
of `podlimits run`'s own instructions went to that parse). The JSON stays the one source; the
unit test SchemaTables.SameAsTheJson checks the two readings agree.
"""

import json
import sys

KINDS = {"scalar": 0, "ref": 1, "list": 2, "map": 3}


def c_string(s):
    if s is None:
        return "nullptr"
    return json.dumps(s)  # a JSON string literal is a valid C++ one for this schema's text


def main():
    source, output, name = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(source, encoding="utf-8") as f:
        doc = json.load(f)
    types = list(doc["types"].items())
    index = {type_id: i for i, (type_id, _) in enumerate(types)}
    specs = []  # (kind, type, format, proposed, ref, elem, always, required, pb, pb_in)

    def add_spec(v):
        position = len(specs)
        specs.append(None)
        if "ref" in v:
            if v["ref"] not in index:
                sys.exit(f"schema_tables: {source}: unknown ref {v['ref']}")
            kind, ref, elem = "ref", index[v["ref"]], -1
        elif "list" in v:
            kind, ref, elem = "list", -1, add_spec(v["list"])
        elif "map" in v:
            kind, ref, elem = "map", -1, add_spec(v["map"])
        else:
            kind, ref, elem = "scalar", -1, -1
        specs[position] = (KINDS[kind], v.get("type"), v.get("format"), v.get("proposed"), ref,
                           elem, bool(v.get("always", False)), bool(v.get("required", False)),
                           int(v.get("pb", 0)), int(v.get("pbIn", 0)))
        return position

    fields = []  # (name, spec)
    type_rows = []  # (id, first field, field count)
    for type_id, t in types:
        first = len(fields)
        for field_name, spec in t.get("fields", {}).items():
            fields.append((field_name, add_spec(spec)))
        type_rows.append((type_id, first, len(fields) - first))
    roots = [(kind, index[type_id]) for kind, type_id in doc["roots"].items()]

    out = [f"// Generated from {source} by cmake/schema_tables.py; do not edit.",
           '#include "api/schema_tables.h"',
           "namespace podlimits::api {",
           "namespace {",
           "constexpr SchemaTables::Type kTypes[] = {"]
    out += [f"    {{{c_string(i)}, {first}, {count}}}," for i, first, count in type_rows]
    out.append("};")
    out.append("constexpr SchemaTables::Field kFields[] = {")
    out += [f"    {{{c_string(n)}, {s}}}," for n, s in fields]
    out.append("};")
    out.append("constexpr SchemaTables::Spec kSpecs[] = {")
    for kind, type_word, fmt, proposed, ref, elem, always, required, pb, pb_in in specs:
        out.append(f"    {{{kind}, {c_string(type_word)}, {c_string(fmt)}, {c_string(proposed)}, "
                   f"{ref}, {elem}, {str(always).lower()}, {str(required).lower()}, {pb}, "
                   f"{pb_in}}},")
    out.append("};")
    out.append("constexpr SchemaTables::Root kRoots[] = {")
    out += [f"    {{{c_string(k)}, {t}}}," for k, t in roots]
    out.append("};")
    out.append("constexpr SchemaTables kTables{kTypes, std::size(kTypes), kFields, kSpecs, kRoots,")
    out.append("                             std::size(kRoots)};")
    out.append("}  // namespace")
    out.append(f"const SchemaTables& {name}() {{ return kTables; }}")
    out.append("}  // namespace podlimits::api")
    text = "\n".join(out) + "\n"
    try:
        with open(output, encoding="utf-8") as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    with open(output, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
