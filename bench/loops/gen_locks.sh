#!/usr/bin/env bash
# Writes locks_N.c: a lock protocol over N flags (the SV-COMP "locks"
# pattern, written here): each iteration takes the locks whose flag is set
# and releases them, checking that each is held. Safe for every N;
# locks_N_bug.c releases one lock under the wrong flag.
set -euo pipefail
cd "$(dirname "$0")"
gen() {
    local n=$1 bug=$2 out=$3
    {
        if [ "$bug" = 1 ]; then echo "// expect: FALSE"; else echo "// expect: TRUE"; fi
        echo "// A lock protocol over $n flags (written by bench/loops/gen_locks.sh)."
        echo '#include "braid.h"'
        echo 'int main(void) {'
        for i in $(seq 1 "$n"); do echo "  int p$i = __VERIFIER_nondet_int();"; echo "  int lk$i = 0;"; done
        echo '  while (1) {'
        echo '    if (__VERIFIER_nondet_int() == 0) break;'
        for i in $(seq 1 "$n"); do echo "    lk$i = 0;"; done
        for i in $(seq 1 "$n"); do echo "    if (p$i != 0) lk$i = 1;"; done
        for i in $(seq 1 "$n"); do
            local guard="p$i"
            if [ "$bug" = 1 ] && [ "$i" = "$n" ]; then guard="p$i || p1"; fi
            echo "    if ($guard) { if (lk$i != 1) reach_error(); lk$i = 0; }"
        done
        echo '  }'
        echo '  return 0;'
        echo '}'
    } > "$out"
}
for n in 2 4 6 8; do gen "$n" 0 "locks_$n.c"; done
gen 4 1 locks_4_bug.c
