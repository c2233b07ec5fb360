#!/bin/sh
# gradlint.sh MODE OUTPUT FILE -- FLAGS...: one gradlint action of the aspect.
#   report: the JSON report of FILE into OUTPUT (findings never fail it;
#           compiler errors do, as they do a compile).
#   check:  findings in clang's format on stdout (Bazel shows them) and a
#           failed action when there is any; OUTPUT is written when there is
#           none.
mode=$1 output=$2
shift 2
gradlint=${GRADLINT:-gradlint}
case $mode in
  report) exec "$gradlint" --quiet --format=json --output="$output" "$@" ;;
  check) "$gradlint" --quiet --fail-on=warning "$@" && : > "$output" ;;
  *) echo "gradlint.sh: unknown mode '$mode'" >&2; exit 3 ;;
esac
