#!/bin/sh
# The whole test suite against an AddressSanitizer + UBSan build (docs/architecture.md §7).
#
#   tests/run_sanitized.sh [pytest arguments...]
#
# Builds (or brings up to date) a Debug sanitizer build in build/asan, installed editable into
# a venv of its own ($KIBITZ_SANITIZE_VENV, default build/venv-asan), so the developer build
# and its venv are left alone. The tests then run with the ASan runtime preloaded into Python,
# which is not instrumented itself; the engine and referee subprocesses the tests start inherit
# the same environment. Every sanitizer report goes to a file of its own: a report from an
# engine subprocess can otherwise pass unseen as that engine's forfeit. The run fails if any
# test fails or any report was written.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=${KIBITZ_SANITIZE_VENV:-$ROOT/build/venv-asan}

if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q scikit-build-core pybind11 ninja cmake cython
fi
(cd "$ROOT" && "$VENV/bin/pip" install -q --no-build-isolation -Cbuild-dir=build/asan -Ccmake.build-type=Debug \
  -Ccmake.define.KIBITZ_SANITIZE=ON -e '.[test]')

REPORTS=$(mktemp -d "${TMPDIR:-/tmp}/kibitz-sanitize.XXXXXX")
LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libstdc++.so)"
# Leak checking is off: the interpreter still holds memory at exit by design. The tests that
# raise C++ exceptions need libstdc++ preloaded with the runtime (else ASan's __cxa_throw
# interceptor aborts), PYTHONMALLOC=malloc lets ASan watch the Python objects too, and
# handle_abort reports a failed library assertion (an index past a std::array) with its stack.
ASAN_OPTIONS="detect_leaks=0:detect_stack_use_after_return=1:check_initialization_order=1:handle_abort=1:log_path=$REPORTS/asan"
UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$REPORTS/ubsan"
PYTHONMALLOC=malloc
export LD_PRELOAD ASAN_OPTIONS UBSAN_OPTIONS PYTHONMALLOC

cd "$REPORTS"  # whatever the tests leave in their working directory lands here, with the reports
status=0
"$VENV/bin/python" -m pytest -p no:cacheprovider "$ROOT/tests" "$@" || status=$?
unset LD_PRELOAD

if [ -n "$(ls "$REPORTS" | grep -E '^(asan|ubsan)\.')" ]; then
  cat "$REPORTS"/asan.* "$REPORTS"/ubsan.* 2>/dev/null
  echo "sanitizer reports above (kept in $REPORTS)" >&2
  exit 1
fi
rm -rf "$REPORTS"
exit "$status"
