//! Property tests on random small programs: every engine's tests replay to
//! their recorded outcomes; dse under every searcher explores the same tree;
//! multise, multise --no-coalesce and dse agree on bugs and covered branches;
//! loop-head merging loses no bug and no covered branch.

use braid_engine::dse::concolic::Strategy as ConcolicStrategy;
use braid_engine::dse::merging::{Merging, Similarity, Strategy, DSM_DRIVER};
use braid_engine::multise::Pick;
use braid_engine::replay::{coverage, replay};
use braid_engine::{explore_collect, Budget, Config, EngineKind, EngineSpec, RunAhead, RunResult, SearchKind};
use braid_ir::{parse, random_loop_program, random_memory_program, random_program};
use proptest::prelude::*;
use std::collections::BTreeSet;

type Bugs = BTreeSet<(braid_ir::BugKind, String)>;
type Covered = BTreeSet<braid_engine::results::Branch>;

#[derive(Clone)]
enum Engine {
    Dse(SearchKind),
    /// dse (dfs) with the solver layer's unsat cores, incremental solving
    /// and simplex-first set as given (all on by default).
    DseSolver {
        cores: bool,
        incremental: bool,
        simplex: bool,
    },
    /// The last field: split a merged state back at its first query that
    /// reaches the solver; false: never split (the default's 250 ms budget
    /// would make path counts depend on the machine's load).
    Merging(Strategy, Similarity, SearchKind, bool),
    /// ssm or dsm (merging all, dfs) raced against dse from the first
    /// statement (`Merging::race_after_ms` 0).
    Raced(Strategy),
    /// `collect`: garbage-collect the BDD nodes at nearly every step.
    Multise {
        coalesce: bool,
        pick: Pick,
        collect: bool,
    },
    Concolic {
        strategy: ConcolicStrategy,
        partial: bool,
    },
    /// An engine of the forking family with loop-head merging on (every
    /// other engine here runs with it off, so that path counts compare).
    LoopMerge(Box<Engine>),
    /// dse (dfs) running states ahead in the concrete interpreter as given
    /// (every other engine here runs with the default, `On`), with
    /// loop-head merging on or off.
    DseAhead(RunAhead, bool),
    /// multise (defaults) running its frames ahead as given.
    MultiseAhead(RunAhead),
    /// An engine running states ahead as given.
    Ahead(RunAhead, Box<Engine>),
}

/// Explores `src` with `engine`; checks that the run is complete and every
/// test replays, and returns the result, its bugs and the branches its tests
/// cover.
fn explore(src: &str, engine: &Engine) -> (RunResult, Bugs, Covered) {
    explore_bounded(src, engine, None)
}

/// [`explore`] under a loop bound, if any: then the run may be incomplete.
fn explore_bounded(src: &str, engine: &Engine, loop_bound: Option<u32>) -> (RunResult, Bugs, Covered) {
    explore_with(src, engine, loop_bound, true).expect("complete")
}

/// [`explore_bounded`]; with `must_complete` false, `None` if the run is
/// incomplete (a query the solver could not decide in its 10 s).
fn explore_with(
    src: &str,
    engine: &Engine,
    loop_bound: Option<u32>,
    must_complete: bool,
) -> Option<(RunResult, Bugs, Covered)> {
    let module = parse("random.bir", src).expect("generated programs parse");
    let entry = module.func_index("main").expect("a main function");
    let mut config = Config {
        seed: 3,
        loop_merge: matches!(engine, Engine::LoopMerge(_) | Engine::DseAhead(_, true)),
        ..Config::default()
    };
    let engine = match engine {
        Engine::Ahead(mode, inner) => {
            config.run_ahead = *mode;
            inner
        }
        other => other,
    };
    let engine = match engine {
        Engine::LoopMerge(inner) => inner,
        other => other,
    };
    // A guard only: generated programs are linear but for divisions.
    config.limits.solver_timeout_ms = Some(10_000);
    config.limits.loop_bound = loop_bound;
    let spec = match engine {
        Engine::Dse(search) => {
            config.search = *search;
            EngineSpec::new(EngineKind::Dse)
        }
        Engine::DseSolver {
            cores,
            incremental,
            simplex,
        } => {
            config.unsat_cores = *cores;
            config.incremental = *incremental;
            config.simplex = *simplex;
            EngineSpec::new(EngineKind::Dse)
        }
        Engine::Raced(strategy) => {
            let mut spec = EngineSpec::new(match strategy {
                Strategy::Static => EngineKind::Ssm,
                Strategy::Dynamic { .. } => EngineKind::Dsm,
            });
            let merging = spec.merging.as_mut().expect("merging");
            merging.similarity = Similarity::All;
            merging.split_after_ms = u32::MAX;
            merging.race_after_ms = Some(0);
            spec
        }
        Engine::Merging(strategy, similarity, search, split) => {
            config.search = *search;
            let mut spec = EngineSpec::new(match strategy {
                Strategy::Static => EngineKind::Ssm,
                Strategy::Dynamic { .. } => EngineKind::Dsm,
            });
            spec.merging = Some(Merging {
                strategy: *strategy,
                similarity: *similarity,
                qce: Default::default(),
                split_after_ms: if *split { 0 } else { u32::MAX },
                // The properties are about merging.
                fallback: None,
                race_after_ms: None,
                race_threads: false,
                merge_for_ms: None,
            });
            spec
        }
        Engine::Multise {
            coalesce,
            pick,
            collect,
        } => {
            let mut spec = EngineSpec::new(EngineKind::Multise);
            spec.multise.coalesce = *coalesce;
            spec.multise.pick = *pick;
            // Merging itself is under test: it never hands over to dse here.
            spec.multise.fallback = None;
            if *collect {
                spec.multise.gc_min_nodes = 0;
                // Reordering runs at collections: sifted guards keep their
                // functions.
                spec.multise.reorder = true;
                spec.multise.reorder_min_nodes = 0;
            }
            spec
        }
        Engine::Concolic { strategy, partial } => {
            let mut spec = EngineSpec::new(EngineKind::Concolic);
            spec.concolic.strategy = *strategy;
            spec.concolic.partial_solutions = *partial;
            spec
        }
        Engine::LoopMerge(_) | Engine::Ahead(..) => unreachable!("not nested"),
        Engine::DseAhead(mode, _) => {
            config.run_ahead = *mode;
            EngineSpec::new(EngineKind::Dse)
        }
        Engine::MultiseAhead(mode) => {
            config.run_ahead = *mode;
            let mut spec = EngineSpec::new(EngineKind::Multise);
            spec.multise.fallback = None;
            spec
        }
    };
    let (result, tests) =
        explore_collect(&module, entry, "random.bir", config, &spec, &Budget::unlimited()).expect("runs");
    let name = format!("{} {:?}", result.engine, engine_label(engine));
    if !must_complete && !result.complete() {
        // Only the solver may leave the run undecided.
        let undecided = |r: &String| r.starts_with("solver:") || r == "interrupted";
        assert!(
            result.incomplete_reasons.iter().all(undecided),
            "{name}: {:?}\n{src}",
            result.incomplete_reasons
        );
        return None;
    }
    assert!(
        loop_bound.is_some() || result.complete(),
        "{name}: {:?}\n{src}",
        result.incomplete_reasons
    );
    assert_eq!(result.stats.tests_not_reproduced, 0, "{name}\n{src}");
    for t in &tests {
        if let Err(why) = replay(&module, t) {
            panic!("{name} test does not replay: {why}\n{src}");
        }
    }
    let bugs = result
        .bugs
        .iter()
        .map(|b| (b.kind.clone(), b.location.clone()))
        .collect();
    let covered = coverage(&module, &tests);
    Some((result, bugs, covered))
}

fn engine_label(engine: &Engine) -> String {
    match engine {
        Engine::Dse(search) => search.name().to_string(),
        Engine::DseSolver {
            cores,
            incremental,
            simplex,
        } => format!("unsat cores {cores} incremental {incremental} simplex {simplex}"),
        Engine::Merging(_, similarity, search, split) => format!("{similarity:?} {} split {split}", search.name()),
        Engine::Raced(strategy) => format!("{strategy:?} raced against dse"),
        Engine::Multise {
            coalesce,
            pick,
            collect,
        } => format!("coalesce {coalesce} {pick:?} collect {collect}"),
        Engine::Concolic { strategy, partial } => format!("{} partial solutions {partial}", strategy.name()),
        Engine::LoopMerge(inner) => format!("{} with loop merging", engine_label(inner)),
        Engine::DseAhead(mode, loop_merge) => format!("run ahead {mode:?}, loop merging {loop_merge}"),
        Engine::MultiseAhead(mode) => format!("multise run ahead {mode:?}"),
        Engine::Ahead(mode, inner) => format!("{} running ahead {mode:?}", engine_label(inner)),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, max_shrink_iters: 0, ..ProptestConfig::default() })]

    /// dse under every searcher explores the same tree: same paths (one test
    /// each), covered branches and bugs; so does dse without the solver
    /// layer's unsat cores, incremental solving or simplex-first (solver
    /// settings never change a verdict).
    #[test]
    fn every_test_replays_and_searchers_agree(seed in any::<u64>()) {
        let src = random_program(seed);
        let (r, bugs, covered) = explore(&src, &Engine::Dse(SearchKind::Dfs));
        prop_assert_eq!(r.paths as usize, r.tests);
        for search in [SearchKind::Bfs, SearchKind::RandomPath, SearchKind::CovNew] {
            let (o, obugs, ocovered) = explore(&src, &Engine::Dse(search));
            prop_assert_eq!((r.paths, &bugs, &covered), (o.paths, &obugs, &ocovered), "dfs vs {}\n{}", search.name(), src);
        }
        for (cores, incremental, simplex) in [(false, false, true), (true, false, true), (false, true, true), (true, true, false)] {
            let engine = Engine::DseSolver { cores, incremental, simplex };
            let (o, obugs, ocovered) = explore(&src, &engine);
            let label = engine_label(&engine);
            prop_assert_eq!((r.paths, &bugs, &covered), (o.paths, &obugs, &ocovered), "default vs {}\n{}", label, src);
        }
    }

    /// seed 000 §3.4: multise, multise --no-coalesce (DSE as a special case)
    /// and dse find the same bugs and their tests cover the same branches
    /// (multise with the BDD manager collecting garbage at nearly every step
    /// among them).
    /// Without coalescing, multise counts dse's paths exactly on programs
    /// without memory: through a symbolic offset dse forks per cell while
    /// MultiSE's LOAD/STORE rules update guarded cells without splitting pc.
    #[test]
    fn multise_and_dse_agree(seed in any::<u64>()) {
        let src = random_program(seed);
        let (d, bugs, covered) = explore(&src, &Engine::Dse(SearchKind::Dfs));
        for pick in [Pick::Topo, Pick::Dfs, Pick::Bfs] {
            for coalesce in [true, false] {
                // Garbage collection at nearly every step must not change a thing.
                let collect = pick == Pick::Topo && coalesce;
                let (m, mbugs, mcovered) = explore(&src, &Engine::Multise { coalesce, pick, collect });
                prop_assert_eq!((&bugs, &covered), (&mbugs, &mcovered), "dse vs {} {:?}\n{}", m.engine, pick, src);
                if !coalesce && !src.contains("alloc") {
                    prop_assert_eq!(d.paths, m.paths, "paths of dse vs {} {:?}\n{}", m.engine, pick, src);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, max_shrink_iters: 0, ..ProptestConfig::default() })]

    /// Symbolic offsets into arrays of 100 cells span more cells than the
    /// engines fork over: loads read array terms, stores make every cell
    /// they may reach a choice. Every engine stays complete, and finds dse's
    /// bugs and covered branches; every test replays in the concrete
    /// interpreter, which knows nothing of arrays. (Left out: a program on
    /// which an engine meets a query Z3 does not decide in 10 s, such as
    /// integer `mod` under a read of 100 cells.)
    #[test]
    fn wide_symbolic_offsets_go_through_arrays_and_engines_agree(seed in any::<u64>()) {
        let src = random_memory_program(seed);
        let baseline = explore_with(&src, &Engine::Dse(SearchKind::Dfs), None, false);
        prop_assume!(baseline.is_some());
        let (_, bugs, covered) = baseline.expect("assumed");
        let engines = [
            Engine::Dse(SearchKind::Bfs),
            Engine::Multise { coalesce: true, pick: Pick::Topo, collect: false },
            Engine::Merging(Strategy::Static, Similarity::All, SearchKind::Dfs, false),
            Engine::Concolic { strategy: ConcolicStrategy::ALL[0], partial: false },
        ];
        let runs: Vec<_> = engines.iter().map(|e| explore_with(&src, e, None, false)).collect();
        prop_assume!(runs.iter().all(Option::is_some));
        for (m, mbugs, mcovered) in runs.into_iter().flatten() {
            prop_assert_eq!((&bugs, &covered), (&mbugs, &mcovered), "dse vs {}\n{}", m.engine, src);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, max_shrink_iters: 0, ..ProptestConfig::default() })]

    /// seed 002: concolic execution explores the same program as dse, one
    /// run per path: under every strategy, with and without partial
    /// solutions, the same paths, bugs and covered branches, and every test
    /// (those of partial solutions too) replays.
    #[test]
    fn concolic_and_dse_agree(seed in any::<u64>()) {
        let src = random_program(seed);
        let (d, bugs, covered) = explore(&src, &Engine::Dse(SearchKind::Dfs));
        for strategy in ConcolicStrategy::ALL {
            for partial in [false, true] {
                let (c, cbugs, ccovered) = explore(&src, &Engine::Concolic { strategy, partial });
                let label = format!("{} {}", strategy.name(), partial);
                prop_assert_eq!((&bugs, &covered), (&cbugs, &ccovered), "dse vs concolic {}\n{}", label, src);
                prop_assert_eq!(d.paths, c.paths, "paths of dse vs concolic {}\n{}", label, src);
                prop_assert_eq!(c.paths as usize, c.tests, "concolic {}: one test per path\n{}", label, src);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, max_shrink_iters: 0, ..ProptestConfig::default() })]

    /// seed 004: state merging explores the same program as dse. ssm under
    /// every `--merge` and dsm under every driving searcher find the same
    /// bugs, and their tests (one per merged state, plus one per merged path
    /// that first covered a branch) cover the same branches and replay.
    /// Without merging, ssm counts dse's paths exactly. ssm and dsm raced
    /// against dse agree too, whichever finishes first.
    #[test]
    fn merging_and_dse_agree(seed in any::<u64>()) {
        let src = random_program(seed);
        let (d, bugs, covered) = explore(&src, &Engine::Dse(SearchKind::Dfs));
        let mut engines = vec![];
        for similarity in [Similarity::None, Similarity::All, Similarity::Qce] {
            engines.push(Engine::Merging(Strategy::Static, similarity, SearchKind::Dfs, false));
        }
        // Splitting merged states back (at every query that reaches the
        // solver) explores the same program.
        engines.push(Engine::Merging(Strategy::Static, Similarity::All, SearchKind::Dfs, true));
        for search in SearchKind::ALL {
            for similarity in [Similarity::All, Similarity::Qce] {
                engines.push(Engine::Merging(Strategy::Dynamic { delta: 8, driver: search }, similarity, search, false));
            }
        }
        // Raced against dse, whichever finishes first.
        engines.push(Engine::Raced(Strategy::Static));
        engines.push(Engine::Raced(Strategy::Dynamic { delta: 8, driver: DSM_DRIVER }));
        for engine in &engines {
            let (m, mbugs, mcovered) = explore(&src, engine);
            prop_assert_eq!((&bugs, &covered), (&mbugs, &mcovered), "dse vs {}\n{}", m.engine, src);
            if let Engine::Merging(_, Similarity::None, _, _) = engine {
                prop_assert_eq!(d.paths, m.paths, "paths of dse vs ssm --merge none\n{}", src);
                prop_assert_eq!(m.stats.states_merged, 0);
            }
        }
    }
}

/// A random program with a few random mutations of its literals, operators
/// and jump targets, when it still parses and checks: odd but valid programs
/// (values of other sorts flowing into arithmetic and branches, other jumps).
fn mutated_program(seed: u64, edits: &[(usize, u8)]) -> Option<String> {
    const LITERALS: [&str; 7] = ["true", "undef", "1.5", "0", "-1", "@helper", "x0"];
    const OPERATORS: [&str; 7] = ["+", "-", "*", "/", "<", "==", "!="];
    let src = random_program(seed);
    let labels: Vec<String> = src
        .lines()
        .filter_map(|l| l.strip_suffix(':'))
        .filter(|l| !l.contains(' '))
        .map(String::from)
        .collect();
    let mut words: Vec<String> = src.split(' ').map(String::from).collect();
    let mutable: Vec<usize> = (0..words.len())
        .filter(|&i| {
            let w = &words[i];
            (i > 0 && words[i - 1] == "goto")
                || OPERATORS.contains(&w.as_str())
                || w.starts_with(|c: char| c.is_ascii_digit() || c == '-') && w != "-"
        })
        .collect();
    if mutable.is_empty() {
        return None;
    }
    for &(at, pick) in edits {
        let i = mutable[at % mutable.len()];
        let w = words[i].clone();
        let after_goto = i > 0 && words[i - 1] == "goto";
        words[i] = if after_goto && !labels.is_empty() {
            let tail = w.trim_start_matches(|c: char| c.is_alphanumeric());
            format!("{}{tail}", labels[pick as usize % labels.len()])
        } else if OPERATORS.contains(&w.as_str()) {
            OPERATORS[pick as usize % OPERATORS.len()].to_string()
        } else if let Some(rest) = w.strip_prefix(|c: char| c.is_ascii_digit() || c == '-') {
            // A literal, possibly followed by a newline.
            let tail = rest.trim_start_matches(|c: char| c.is_ascii_digit());
            format!("{}{tail}", LITERALS[pick as usize % LITERALS.len()])
        } else {
            w
        };
    }
    let text = words.join(" ");
    parse("mutated.bir", &text).ok().map(|_| text)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, max_shrink_iters: 0, ..ProptestConfig::default() })]

    /// Engines never panic on valid programs, however odd, and their tests
    /// replay (runs are bounded, so they may be incomplete).
    #[test]
    fn engines_never_panic_on_odd_programs(seed in any::<u64>(), edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4)) {
        let Some(src) = mutated_program(seed, &edits) else { return Ok(()) };
        let module = parse("mutated.bir", &src).expect("checked above");
        let entry = module.func_index("main").expect("a main function");
        let mut config = Config::default();
        config.limits.loop_bound = Some(3);
        config.limits.solver_timeout_ms = Some(2000);
        for kind in [EngineKind::Dse, EngineKind::Multise] {
            let budget = Budget::start(braid_budget::Limits { time: Some(std::time::Duration::from_secs(2)), memory_mb: None });
            let mut spec = EngineSpec::new(kind);
            spec.multise.dump_state = true;
            let (_, tests) = explore_collect(&module, entry, "mutated.bir", config.clone(), &spec, &budget).expect("runs");
            for t in &tests {
                if let Err(why) = replay(&module, t) {
                    panic!("test does not replay: {why}\n{src}");
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, max_shrink_iters: 0, ..ProptestConfig::default() })]

    /// seed 003: with loop-head merging on, dse under every searcher, ssm,
    /// dsm and multise (with garbage collection at nearly every step too)
    /// find the bugs dse finds without it and their tests cover the
    /// same branches (states an earlier one stands for stop at loop heads;
    /// the ones that covered a branch first get a test of their own), and
    /// every test replays.
    #[test]
    fn loop_merging_loses_nothing(seed in any::<u64>()) {
        let src = random_program(seed);
        let (_, bugs, covered) = explore(&src, &Engine::Dse(SearchKind::Dfs));
        let mut engines: Vec<Engine> = SearchKind::ALL.into_iter().map(Engine::Dse).collect();
        engines.push(Engine::Merging(Strategy::Static, Similarity::All, SearchKind::Dfs, false));
        engines.push(Engine::Merging(Strategy::Dynamic { delta: 8, driver: SearchKind::CovNew }, Similarity::Qce, SearchKind::CovNew, false));
        engines.push(Engine::Multise { coalesce: true, pick: Pick::Topo, collect: false });
        engines.push(Engine::Multise { coalesce: true, pick: Pick::Topo, collect: true });
        for engine in engines {
            let engine = Engine::LoopMerge(Box::new(engine));
            let (m, mbugs, mcovered) = explore(&src, &engine);
            let label = engine_label(&engine);
            prop_assert_eq!((&bugs, &covered), (&mbugs, &mcovered), "dse vs {} {}\n{}", m.engine, label, src);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, max_shrink_iters: 0, ..ProptestConfig::default() })]

    /// seed 003: a finite-state loop driven by fresh inputs has unboundedly
    /// many paths; with loop-head merging dse (dfs, bfs, covnew) explores it
    /// completely (`explore` checks that the run is complete: the loop
    /// reached a fixed point, or never repeats), and so does multise, so
    /// they find every bug and cover every branch that dse without merging
    /// finds within 4 iterations, and every test replays. (`ssm` does not split merged
    /// values at loop heads, so its `ite` values over each iteration's
    /// inputs may never repeat; `loop_merging_loses_nothing` covers it.)
    #[test]
    fn loop_merging_reaches_fixed_points(seed in any::<u64>()) {
        let src = random_loop_program(seed);
        let (_, bugs, covered) = explore_bounded(&src, &Engine::Dse(SearchKind::Dfs), Some(4));
        let engines = [
            Engine::Dse(SearchKind::Dfs),
            Engine::Dse(SearchKind::Bfs),
            Engine::Dse(SearchKind::CovNew),
            Engine::Multise { coalesce: true, pick: Pick::Topo, collect: false },
        ];
        for engine in engines {
            let engine = Engine::LoopMerge(Box::new(engine));
            let (_, mbugs, mcovered) = explore(&src, &engine);
            let label = engine_label(&engine);
            prop_assert!(bugs.is_subset(&mbugs), "{}: {:?} not in {:?}\n{}", label, bugs, mbugs, src);
            prop_assert!(covered.is_subset(&mcovered), "{}: {:?} not in {:?}\n{}", label, covered, mcovered, src);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, max_shrink_iters: 0, ..ProptestConfig::default() })]

    /// dse hands states to the concrete interpreter where they compute on
    /// machine values alone and takes them back at the first symbolic
    /// value, input, possible bug or watched loop head: eager, with waits,
    /// and off, it explores the same tree (same paths, bugs and covered
    /// branches, every test replays), with loop-head merging off and on
    /// (finite-state loops driven by inputs: on only, where they end). Left
    /// out: runs the solver leaves incomplete, a query it could not decide
    /// in 10 s (non-linear integer division, say; more often on a loaded
    /// machine); any other incompleteness fails.
    #[test]
    fn running_ahead_changes_no_exploration(seed in any::<u64>()) {
        let programs = [
            (random_program(seed), false),
            (random_program(seed), true),
            (random_memory_program(seed), false),
            (random_loop_program(seed), true),
        ];
        for (src, loop_merge) in programs {
            let off = Engine::DseAhead(RunAhead::Off, loop_merge);
            let Some((r, bugs, covered)) = explore_with(&src, &off, None, false) else {
                continue;
            };
            for mode in [RunAhead::Eager, RunAhead::On] {
                let engine = Engine::DseAhead(mode, loop_merge);
                let Some((o, obugs, ocovered)) = explore_with(&src, &engine, None, false) else {
                    continue;
                };
                let label = engine_label(&engine);
                prop_assert_eq!((r.paths, &bugs, &covered), (o.paths, &obugs, &ocovered), "off vs {}\n{}", label, src);
            }
        }
    }

    /// The merging engines run a state ahead while it is the only one (no
    /// state to merge with): ssm explores the same tree eager, with waits
    /// and off, and so do concolic runs (with and without partial
    /// solutions); dsm, whose fast-forwarding sees fewer slices, the same
    /// bugs and covered branches (left out: runs the solver leaves
    /// incomplete, a query it could not decide in 10 s; path counts of runs
    /// where such a query split a merged state).
    #[test]
    fn merging_running_ahead_changes_no_exploration(seed in any::<u64>()) {
        for src in [random_program(seed), random_memory_program(seed)] {
            let engines = [
                (Engine::Merging(Strategy::Static, Similarity::All, SearchKind::Dfs, false), true),
                (Engine::Merging(Strategy::Dynamic { delta: 8, driver: SearchKind::Dfs }, Similarity::All, SearchKind::Dfs, false), false),
                (Engine::Concolic { strategy: ConcolicStrategy::ALL[0], partial: false }, true),
                (Engine::Concolic { strategy: ConcolicStrategy::ALL[0], partial: true }, true),
            ];
            for (inner, same_paths) in engines {
                let off = Engine::Ahead(RunAhead::Off, Box::new(inner.clone()));
                let Some((r, bugs, covered)) = explore_with(&src, &off, None, false) else {
                    continue;
                };
                for mode in [RunAhead::Eager, RunAhead::On] {
                    let engine = Engine::Ahead(mode, Box::new(inner.clone()));
                    let Some((o, obugs, ocovered)) = explore_with(&src, &engine, None, false) else {
                        continue;
                    };
                    let label = engine_label(&engine);
                    prop_assert_eq!((&bugs, &covered), (&obugs, &ocovered), "off vs {}\n{}", label, src);
                    // (A merged query the solver cannot decide in its 10 s
                    // splits the state: path counts then depend on time.)
                    if same_paths && r.stats.splits == 0 && o.stats.splits == 0 {
                        prop_assert_eq!(r.paths, o.paths, "paths, off vs {}\n{}", label, src);
                    }
                }
            }
        }
    }

    /// multise hands its frame's one `pc` entry to the interpreter, each
    /// value as the one its summary has under the entry's guard or as a
    /// placeholder, and writes what comes back with `⊎`; a run handed back
    /// inside a call becomes nested frames: eager, with waits, and off, it
    /// explores the same (same paths, bugs and covered branches, every
    /// test replays), on programs with calls, bounded loops and memory
    /// (left out: a program whose run without running ahead is incomplete,
    /// a remainder the solver could not decide in its 10 s).
    #[test]
    fn multise_running_ahead_changes_no_exploration(seed in any::<u64>()) {
        let programs = [random_program(seed), random_memory_program(seed)];
        let baselines: Vec<_> = programs
            .iter()
            .map(|src| explore_with(src, &Engine::MultiseAhead(RunAhead::Off), None, false))
            .collect();
        prop_assume!(baselines.iter().all(Option::is_some));
        for (src, baseline) in programs.iter().zip(baselines) {
            let (r, bugs, covered) = baseline.expect("assumed");
            for mode in [RunAhead::Eager, RunAhead::On] {
                let engine = Engine::MultiseAhead(mode);
                // A question the solver left undecided in its 10 s (both
                // cores busy with other properties) stops a run short of
                // the baseline's; that is no disagreement in exploration.
                let Some((o, obugs, ocovered)) = explore_with(src, &engine, None, false) else {
                    continue;
                };
                let label = engine_label(&engine);
                prop_assert_eq!((r.paths, &bugs, &covered), (o.paths, &obugs, &ocovered), "off vs {}\n{}", label, src);
            }
        }
    }
}
