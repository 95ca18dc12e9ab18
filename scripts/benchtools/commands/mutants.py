"""Mutation testing of the modules that make or carry a verdict: mutmut changes one thing at a time in a MODULE and
runs the tests that call the function it changed; a mutant no test fails is a hole, or equivalent (docs/mutants.toml).

Exit 1 when a module's share of non-equivalent mutants killed falls below --against's. Long: run it under nice."""

from pathlib import Path

from .. import util
from ..errors import BadInput
from ..running import mutants
from . import common_args


def add_arguments(parser, config) -> None:
    names = "a module, by its path or as the record names it (benchtools/judging/bisect.py); default: all"
    parser.add_argument("modules", nargs="*", metavar="MODULE", help=names)
    parser.add_argument("--max-children", type=common_args.at_least(1), default=1, help="mutants at once (1)")
    engines = "mutmut, or slips: the second engine's mutations (running/mutants.py's SLIPS), after a mutmut run"
    parser.add_argument("--engine", choices=("mutmut", "slips"), default="mutmut", help=engines)
    record = mutants.RECORD.relative_to(mutants.ROOT)
    parser.add_argument("--record", type=Path, default=mutants.RECORD, metavar="FILE", help=f"({record})")
    survivors = "run again only the mutants of each MODULE that survived in --record (after a test was added)"
    parser.add_argument("--survivors", action="store_true", help=survivors)
    parser.add_argument("--against", type=Path, metavar="FILE", help="a published --record to fall no lower than")
    common_args.add_readme(parser, f"rewrite FILE's generated block {mutants.BLOCK}")


def check(parser, args) -> None:
    known = mutants.modules()
    args.modules = [name if name in known else mutants.stage_name(Path(name)) for name in args.modules] or [
        name for name in known if args.engine == "mutmut" or name not in mutants.SLIPLESS
    ]
    if unknown := [name for name in args.modules if name not in known]:
        parser.error(f"{', '.join(unknown)}: not among pyproject.toml's [tool.mutmut] only_mutate modules")
    if args.engine == "slips" and (slipless := [name for name in args.modules if name in mutants.SLIPLESS]):
        parser.error(f"{', '.join(slipless)}: mutmut alone mutates it (running/mutants.py's SLIPLESS)")


def run(args, config) -> int:
    mutants.stage() if args.engine == "mutmut" else mutants.slip_stage()
    record, key = mutants.read(args.record), "modules" if args.engine == "mutmut" else "slips"
    if args.against and not args.against.is_file():
        raise BadInput(f"--against {args.against}: no such file")
    published = mutants.read(args.against) if args.against else record
    why, fell = mutants.reasons(), []
    digests = {module: mutants.source_digest(module) for module in args.modules}  # the code the stage is made of
    for module in args.modules:
        names = list(record[key].get(module, {}).get("survivors", [])) if args.survivors else None
        if names == []:
            continue  # none survived: nothing to run again
        if args.engine == "slips":
            record.setdefault(key, {})[module] = mutants.run_slips(module)
        else:
            again = mutants.run(module, args.max_children, names)
            entry = mutants.rerun(record[key][module], again) if names else again
            # a rerun of the survivors alone keeps the rest of a run that may have been of earlier code
            ran_today = not names or record[key][module].get("source") == digests[module]
            record[key][module] = entry | ({"source": digests[module]} if ran_today else {})
        util.write_json(args.record, record, sort_keys=True)
        common_args.write_readmes(args.readme, {mutants.BLOCK: mutants.markdown(record, why, mutants.shown())})
        now = mutants.score(record[key][module], why)
        before = mutants.score(published[key][module], why) if module in published.get(key, {}) else 0.0
        print(f"{module}: {now:.1%} of the non-equivalent mutants killed (published: {before:.1%})", flush=True)
        fell += [module] if now < before - 1e-9 else []
    return 1 if fell and args.against else 0
