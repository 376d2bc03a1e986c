#!/usr/bin/env bash
# Validates a docker-compose file (default: deploy/docker-compose.yml) against the Compose
# Specification's JSON schema kept in deploy/compose-spec/ (origin and licence there). No Docker
# engine needed. Exit 0 when valid; 1 with one line per error.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
file=${1:-$root/deploy/docker-compose.yml}
python3 -c 'import yaml, jsonschema' 2>/dev/null || python3 -m pip install --quiet pyyaml jsonschema
exec python3 - "$file" "$root/deploy/compose-spec/compose-spec.json" <<'PY'
import json, sys
import jsonschema, yaml

path, schema_path = sys.argv[1], sys.argv[2]
with open(schema_path) as schema_file:
    schema = json.load(schema_file)
with open(path) as compose_file:
    document = yaml.safe_load(compose_file)
errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(document), key=lambda error: list(error.path))
for error in errors:
    print(f"{path}: {'/'.join(map(str, error.path)) or '(root)'}: {error.message}")
print(f"{path}: {'valid' if not errors else f'{len(errors)} error(s)'} against the Compose Specification")
sys.exit(1 if errors else 0)
PY
