#!/usr/bin/env bash
# Dependency floors: install the declared lower bounds (`>=X` in pyproject.toml, taken as `==X`) of the libraries the
# model code touches into a scratch venv and run the Hugging Face systems' tests there, so every floor is one the
# code runs on. Everything else (torch, which pyproject pins exactly, numpy, datasets, pytest ...) comes from the
# main venv through a .pth line placed after the scratch site-packages: the floors shadow the main venv's versions
# and nothing is installed into, or removed from, the main venv.
#
#   .ci/floors.sh                      # scratch venv in a temporary folder, removed afterwards
#   FLOORS_VENV=~/.cache/nycc-floors .ci/floors.sh   # keep (and reuse) the scratch venv
#   FLOORS_TESTS="tests/test_systems_hf.py -k loglikelihood" .ci/floors.sh
#
# Needs PyPI (pip downloads the floor versions and whatever they require that the main venv lacks).
set -euo pipefail
cd "$(dirname "$0")/.."
MAIN_PY=${PYTHON:-.venv/bin/python}
test -x "$MAIN_PY" || MAIN_PY=python3
LIBS=${FLOORS_LIBS:-"transformers accelerate huggingface_hub sentence-transformers datasets"}
TESTS=${FLOORS_TESTS:-tests/test_systems_hf.py}
if [ -z "${FLOORS_VENV:-}" ]; then
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    FLOORS_VENV=$tmp/venv
fi

# the `>=` floors of LIBS, as `name==version`, from pyproject.toml
pins=$("$MAIN_PY" - "$LIBS" <<'PY'
import re, sys, tomllib
libs = {re.sub(r"[-_.]+", "-", n.lower()) for n in sys.argv[1].split()}
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
deps = project["dependencies"] + [d for group in project["optional-dependencies"].values() for d in group]
pins = {}
for dep in deps:
    m = re.match(r"^([A-Za-z0-9_.-]+)\s*>=\s*([0-9][^,;\s]*)", dep)
    if m and re.sub(r"[-_.]+", "-", m[1].lower()) in libs:
        pins[m[1]] = m[2]
missing = libs - {re.sub(r"[-_.]+", "-", n.lower()) for n in pins}
if missing:
    sys.exit(f"floors: no >= floor in pyproject.toml for {', '.join(sorted(missing))}")
print(" ".join(f"{n}=={v}" for n, v in pins.items()))
PY
)
echo "floors: $pins"

main_site=$("$MAIN_PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
test -x "$FLOORS_VENV/bin/python" || "$MAIN_PY" -m venv "$FLOORS_VENV"
scratch_site=$("$FLOORS_VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$main_site" > "$scratch_site/zz_main_venv.pth"  # after the scratch site-packages on sys.path
# pip sees the main venv's packages as installed (through the .pth) and installs only what the floors change;
# anything it would replace there is outside this venv, so pip leaves it alone ("Not uninstalling ...").
# shellcheck disable=SC2086
"$FLOORS_VENV/bin/python" -m pip install --quiet --disable-pip-version-check $pins
"$FLOORS_VENV/bin/python" - "$LIBS" <<'PY'
import importlib.metadata as md, sys
for name in sys.argv[1].split():
    print(f"floors: {name} {md.version(name)} from {md.distribution(name).locate_file('')}")
PY
start=$(date +%s)
# shellcheck disable=SC2086
PYTHONPATH=$PWD "$FLOORS_VENV/bin/python" -m pytest -q -p no:cacheprovider $TESTS
echo "floors: tests passed on the floors in $(( $(date +%s) - start )) s"
