//! Property tests on random small programs: every engine's tests replay to
//! their recorded outcomes; dse under every searcher explores the same tree;
//! multise, multise --no-coalesce and dse agree on bugs and covered branches.

use braid_engine::dse::Dse;
use braid_engine::multise::{self, Multise, Pick};
use braid_engine::replay::{coverage, replay};
use braid_engine::{Config, RunResult, SearchKind};
use braid_ir::{parse, random_program};
use proptest::prelude::*;
use std::collections::BTreeSet;

type Bugs = BTreeSet<(String, String)>;
type Covered = BTreeSet<braid_engine::results::Branch>;

enum Engine {
    Dse(SearchKind),
    Multise { coalesce: bool, pick: Pick },
}

/// Explores `src` with `engine`; checks that the run is complete and every
/// test replays, and returns the result, its bugs and the branches its tests
/// cover.
fn explore(src: &str, engine: &Engine) -> (RunResult, Bugs, Covered) {
    let module = parse("random.bir", src).expect("generated programs parse");
    let entry = module.func_index("main").expect("a main function");
    let mut config = Config {
        seed: 3,
        ..Config::default()
    };
    // A guard only: generated programs are linear but for divisions.
    config.limits.solver_timeout_ms = Some(10_000);
    let (name, result) = match engine {
        Engine::Dse(search) => {
            config.search = *search;
            (
                search.name().to_string(),
                Dse::new(&module, entry, "random.bir", config)
                    .run(&mut |_| {})
                    .expect("runs"),
            )
        }
        Engine::Multise { coalesce, pick } => {
            let opts = multise::Options {
                coalesce: *coalesce,
                pick: *pick,
                ..multise::Options::default()
            };
            let (r, _) = Multise::new(&module, entry, "random.bir", config, opts)
                .run(&mut |_| {}, false)
                .expect("runs");
            (format!("{} {pick:?}", r.engine), r)
        }
    };
    assert!(result.complete(), "{name}: {:?}\n{src}", result.incomplete_reasons);
    for t in &result.tests {
        if let Err(why) = replay(&module, t) {
            panic!("{name} test does not replay: {why}\n{src}");
        }
    }
    let bugs = result
        .bugs
        .iter()
        .map(|b| (b.kind.clone(), b.location.clone()))
        .collect();
    let covered = coverage(&module, &result.tests);
    (result, bugs, covered)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, max_shrink_iters: 0, ..ProptestConfig::default() })]

    /// dse under every searcher explores the same tree: same paths (one test
    /// each), covered branches and bugs.
    #[test]
    fn every_test_replays_and_searchers_agree(seed in any::<u64>()) {
        let src = random_program(seed);
        let (r, bugs, covered) = explore(&src, &Engine::Dse(SearchKind::Dfs));
        prop_assert_eq!(r.paths as usize, r.tests.len());
        for search in [SearchKind::Bfs, SearchKind::RandomPath, SearchKind::CovNew] {
            let (o, obugs, ocovered) = explore(&src, &Engine::Dse(search));
            prop_assert_eq!((r.paths, &bugs, &covered), (o.paths, &obugs, &ocovered), "dfs vs {}\n{}", search.name(), src);
        }
    }

    /// seed 000 §3.4: multise, multise --no-coalesce (DSE as a special case)
    /// and dse find the same bugs and their tests cover the same branches.
    /// Without coalescing, multise counts dse's paths exactly on programs
    /// without memory: through a symbolic offset dse forks per cell while
    /// MultiSE's LOAD/STORE rules update guarded cells without splitting pc.
    #[test]
    fn multise_and_dse_agree(seed in any::<u64>()) {
        let src = random_program(seed);
        let (d, bugs, covered) = explore(&src, &Engine::Dse(SearchKind::Dfs));
        for pick in [Pick::Topo, Pick::Dfs, Pick::Bfs] {
            for coalesce in [true, false] {
                let (m, mbugs, mcovered) = explore(&src, &Engine::Multise { coalesce, pick });
                prop_assert_eq!((&bugs, &covered), (&mbugs, &mcovered), "dse vs {} {:?}\n{}", m.engine, pick, src);
                if !coalesce && !src.contains("alloc") {
                    prop_assert_eq!(d.paths, m.paths, "paths of dse vs {} {:?}\n{}", m.engine, pick, src);
                }
            }
        }
    }
}
