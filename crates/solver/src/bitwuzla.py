# Bitwuzla (PyPI's `bitwuzla`) as an SMT-LIB 2 solver on standard input:
# braid's helper solver for questions over floats (crate::external). Run
# by braid as `python3 -c <this file>` with the Python of the virtual
# environment scripts/install-deps.sh makes.
import sys
from bitwuzla import Option, Options, Parser, TermManager

options = Options()
options.set(Option.PRODUCE_MODELS, True)
try:
    Parser(TermManager(), options).parse(sys.stdin.read(), False, False)
except Exception as e:  # a script it cannot read, or get-value after unsat
    print("(error %r)" % str(e))
