"""The suite's parameter values: plain constants, no JAX, so that the tools can read them too."""

STRUCTURES = ("tree_at", "tuple")
# filter_jit last: a value appended keeps every earlier combination where the results have it.
WRAPPINGS = ("eager", "jit", "scan", "jit_scan", "filter_jit")
STATE_SIZES = (1, 1_000, 1_000_000)
DEPTHS = (1, 4, 16)
# The answer's state-size sweep (bench_answer.AnswerSweep): 1 to 10**6 elements per leaf, for the compiled wrappings,
# where the Module's cost is paid per call at dispatch and the arithmetic grows with the state until it hides that
# cost.  On a CPU every wrapping's ratio is within its interval of 1 by 10**6; a scan of 10**7 took 72 s a process.
SWEEP_SIZES = tuple(10**power for power in range(7))
SWEEP_WRAPPINGS = ("jit", "filter_jit", "jit_scan")
DISPATCH_WRAPPINGS = ("jit", "filter_jit")
# The answer's fresh processes (bench_answer): on a CPU a process's jitted calls run at one of two speeds, which a
# median over three processes tells apart from a change.
ANSWER_PROCESSES = 3
ANSWER_ROUNDS = 2  # spells of each step in each process
DEFAULT_WRAPPINGS = ("eager", "jit", "filter_jit")  # on a CPU, also timed under JAX's own dispatch
# Its fresh processes there, each a user's timeit: the range of 5 holds one more process's with (5 - 1) / (5 + 1).
DEFAULT_PROCESSES = 5
TIMEIT_REPEATS = 3  # of timeit's autorange, in each of them and in docs/here.md's check
# A spell of the answer's from which the machine took more than this share of its wall time (its thread's CPU time
# short of it) is left out where another is not (docs/timing-load.md).
BUSY = 0.1
# Each figure of the answer is kept at its median and at its interval's ends; how it was taken, beside it: the
# level is the lowest of its intervals' (1 - 2 * 0.5**3 for a quick run's 3 pairs), and "returned before ready" the
# lowest share of a jitted call's returns, over the processes, that left its result still computing.
STATISTICS = ("median", "low", "high")
PROVENANCE = (
    "processes",
    "default-dispatch processes",
    "level",
    "quick",
    "load before",
    "load after",
    "seconds",
    *(f"{wrapping} returned before ready" for wrapping in DISPATCH_WRAPPINGS),
    "default level",  # where one more process's timeit lies: within the range of the processes' with this chance
    # Per step, on a CPU: its spells that the machine took at most BUSY of the time from, and the median share taken.
    *(f"{wrapping} quiet spells" for wrapping in WRAPPINGS),
    *(f"{wrapping} taken" for wrapping in WRAPPINGS),
)
N_CALLS = (1, 8, 64)

DEFAULT_STATE_SIZE = 1_000
DEFAULT_DEPTH = 4
DEFAULT_N_CALLS = 8
SCAN_LENGTH = 100
# Set for asv's benchmark processes by scripts/bench --quick (asv's run of each benchmark once, a smoke test): each
# ratio then times its fewest pairs of batches instead of its seconds.
QUICK_VARIABLE = "EQXB_QUICK"
# Set by the confirm step and scripts/timing-noise (asvtools/sides.py) to a wrapping: the answer's setup_cache then
# measures that step alone, in its own fresh process, so that each value of a side is a fresh measurement.
ONE_STEP_VARIABLE = "EQXB_ANSWER_STEP"
# Set by scripts/bench where its --bench selects some of bench_instructions' operations, not all: the one valgrind
# process counts those alone (a count moves by about 0.03% with the set counted beside it, a tenth of the least floor).
OPERATIONS_VARIABLE = "EQXB_OPERATIONS"

# The Module's own operations (module_ops): the tuple rebuild is the last way to update one field.
N_FIELDS = (2, 32)
DEFAULT_N_FIELDS = 2
INITS = ("default", "custom")
UPDATE_WAYS = ("tree_at", "replace", "construct", "tuple")
