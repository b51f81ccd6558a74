"""Keys a document has that its schema does not name (issue 31: "the schema ctest fails on keys
the schema does not name").

A JSON Schema lets any key through unless it says otherwise, so a key the code added without a
schema entry (a typo, a key renamed in one place) validates silently. This walks a document beside
its schema: for every object, the schema nodes that apply to it (through $ref, allOf, anyOf/oneOf,
if/then/else, in every file of docs/schema), and the keys they name (properties,
patternProperties). A key is unnamed when at least one applicable node describes the object's keys
(has "properties") and none names the key or admits others (additionalProperties a schema or
true). An object whose schema names no properties at all is free-form on purpose (a map such as
attribute_names) and is not judged. anyOf/oneOf branches and then/else both count as applicable:
the check is about naming, validation proper decides which branch holds.
"""
import re


class Walker:
    def __init__(self, store):
        self.store = store

    def resolve(self, ref, base):
        """The node a $ref points to, and the file it is in."""
        file, _, pointer = ref.partition("#")
        file = file or base
        node = self.store[file]
        for part in [p for p in pointer.split("/") if p]:
            part = part.replace("~1", "/").replace("~0", "~")
            node = node[int(part)] if isinstance(node, list) else node[part]
        return node, file

    def applicable(self, node, base, depth=0):
        """Every schema node that applies to an instance of `node`, as (node, file) pairs."""
        out = []
        if not isinstance(node, dict) or depth > 40:
            return out
        out.append((node, base))
        if "$ref" in node:
            target, file = self.resolve(node["$ref"], base)
            out += self.applicable(target, file, depth + 1)
        for key in ("allOf", "anyOf", "oneOf"):
            for sub in node.get(key, []):
                out += self.applicable(sub, base, depth + 1)
        for key in ("then", "else"):
            if key in node:
                out += self.applicable(node[key], base, depth + 1)
        return out

    def unnamed(self, doc, schema_file):
        """Paths of keys in `doc` that `schema_file` does not name ("/tests/foo/bar_ms")."""
        found = []
        self._walk(doc, [(self.store[schema_file], schema_file)], "", found)
        return found

    def _walk(self, value, nodes, path, found):
        applicable = []
        for n, f in nodes:
            applicable += self.applicable(n, f)
        if isinstance(value, dict):
            describes = any("properties" in n for n, _ in applicable)
            admits_any = any(n.get("additionalProperties", None) not in (None, False) for n, _ in applicable)
            for key, sub in value.items():
                subnodes = []
                named = False
                for n, f in applicable:
                    props = n.get("properties", {})
                    if key in props:
                        named = True
                        subnodes.append((props[key], f))
                    for pattern, ps in n.get("patternProperties", {}).items():
                        if re.search(pattern, key):
                            named = True
                            subnodes.append((ps, f))
                    extra = n.get("additionalProperties", None)
                    if isinstance(extra, dict) and key not in props:
                        subnodes.append((extra, f))
                if describes and not named and not admits_any:
                    found.append(path + "/" + key)
                    continue
                self._walk(sub, subnodes, path + "/" + key, found)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                subnodes = []
                for n, f in applicable:
                    items = n.get("items")
                    if isinstance(items, dict):
                        subnodes.append((items, f))
                    prefix = n.get("prefixItems", [])
                    if i < len(prefix):
                        subnodes.append((prefix[i], f))
                self._walk(item, subnodes, path + "/" + str(i), found)
