#!/usr/bin/python3
"""Validates JSON documents against one of herd's schemas (docs/schema/*.schema.json).

    /usr/bin/python3 scripts/validate-json.py SCHEMA DOCUMENT...   ("-": standard input)

The schemas refer to each other by their $id; every schema in SCHEMA's folder is loaded so
that nothing is fetched from the network. Exit status 0 when all are valid, 1 when one is
not (the first error is printed with its JSON path), 2 on bad input.
"""
import json
import pathlib
import sys

import jsonschema


def load_store(folder):
    store = {}
    for path in sorted(folder.glob("*.schema.json")):
        schema = json.loads(path.read_text())
        store[schema.get("$id", path.resolve().as_uri())] = schema
    return store


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    schema_path = pathlib.Path(argv[1])
    schema = json.loads(schema_path.read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    resolver = jsonschema.RefResolver.from_schema(schema, store=load_store(schema_path.parent))
    validator = jsonschema.Draft7Validator(schema, resolver=resolver)
    status = 0
    for name in argv[2:]:
        text = sys.stdin.read() if name == "-" else pathlib.Path(name).read_text()
        try:
            doc = json.loads(text)
        except ValueError as e:
            print(f"{name}: not JSON: {e}", file=sys.stderr)
            return 2
        error = jsonschema.exceptions.best_match(validator.iter_errors(doc))
        if error is not None:
            where = "".join(f"[{p!r}]" for p in error.absolute_path) or "(the document)"
            print(f"{name}: {where}: {error.message}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
