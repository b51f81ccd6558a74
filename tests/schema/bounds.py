"""What physics bounds in a bench document and a schema cannot say (a value against another
value): every LBA a test reports lies inside what it measured, and ranges of LBAs that tile a
span (zones, the access map, slow regions) neither run backwards nor overlap.

A bench document's positions count from settings.offset_bytes in target.logical_block_bytes
blocks (docs/cli.md); the span is settings.span_bytes, or the capacity less the offset.
"""


def span_blocks(doc):
    """The number of blocks a bench document's LBAs must stay below, or None if it cannot say."""
    target, settings = doc.get("target") or {}, doc.get("settings") or {}
    cap, block = target.get("capacity_bytes"), target.get("logical_block_bytes")
    if not isinstance(cap, int) or not isinstance(block, int) or block <= 0:
        return None
    span = settings.get("span_bytes")
    if not isinstance(span, int):
        span = cap - (settings.get("offset_bytes") or 0)
    return span // block


def _is_lba_key(key):
    return key == "lba" or key.endswith("_lba")


def _walk(node, path, limit, out):
    if isinstance(node, dict):
        for k, v in node.items():
            p = path + "." + k
            if _is_lba_key(k):
                values = v if isinstance(v, list) else [v]
                for i, x in enumerate(values):
                    if isinstance(x, bool) or not isinstance(x, int):
                        continue  # null: not measured
                    if not 0 <= x < limit:
                        out.append("%s%s = %d: outside the %d blocks measured"
                                   % (p, "[%d]" % i if isinstance(v, list) else "", x, limit))
            else:
                _walk(v, p, limit, out)
        ranges = [(k, v) for k, v in node.items() if isinstance(v, list) and v
                  and all(isinstance(e, dict) and isinstance(e.get("first_lba"), int)
                          and isinstance(e.get("last_lba"), int) for e in v)]
        for k, v in ranges:
            _ranges(path + "." + k, v, out)
    elif isinstance(node, list):
        for i, e in enumerate(node):
            _walk(e, "%s[%d]" % (path, i), limit, out)


def _ranges(path, items, out):
    for i, e in enumerate(items):
        if e["last_lba"] < e["first_lba"]:
            out.append("%s[%d]: last_lba %d before first_lba %d" % (path, i, e["last_lba"], e["first_lba"]))
    spans = sorted((e["first_lba"], e["last_lba"], i) for i, e in enumerate(items))
    for (a0, a1, i), (b0, b1, j) in zip(spans, spans[1:]):
        if b0 <= a1:
            out.append("%s[%d] (LBA %d-%d) overlaps %s[%d] (LBA %d-%d)" % (path, i, a0, a1, path, j, b0, b1))


def violations(doc):
    """What in a bench document lies outside physics: a list of messages (empty: none)."""
    limit = span_blocks(doc)
    tests = doc.get("tests")
    if limit is None or not isinstance(tests, dict):
        return []
    out = []
    _walk(tests, "tests", limit, out)
    return out
