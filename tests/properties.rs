//! Property tests: on random small programs, every searcher's tests replay to
//! their recorded outcomes, and all searchers agree on paths, covered
//! branches and bugs (they explore the same tree in different orders).

use braid_engine::dse::Dse;
use braid_engine::replay::{coverage, replay};
use braid_engine::{Config, SearchKind};
use braid_ir::{parse, random_program};
use proptest::prelude::*;
use std::collections::BTreeSet;

fn explore(
    src: &str,
    search: SearchKind,
) -> (u64, BTreeSet<(String, String)>, BTreeSet<braid_engine::results::Branch>) {
    let module = parse("random.bir", src).expect("generated programs parse");
    let entry = module.func_index("main").expect("a main function");
    let config = Config {
        search,
        seed: 3,
        ..Config::default()
    };
    let result = Dse::new(&module, entry, "random.bir", config)
        .run(&mut |_| {})
        .expect("runs");
    assert!(result.complete(), "{:?}\n{src}", result.incomplete_reasons);
    assert_eq!(result.paths as usize, result.tests.len());
    for t in &result.tests {
        if let Err(why) = replay(&module, t) {
            panic!("{} test does not replay: {why}\n{src}", search.name());
        }
    }
    let bugs = result
        .bugs
        .iter()
        .map(|b| (b.kind.clone(), b.location.clone()))
        .collect();
    (result.paths, bugs, coverage(&module, &result.tests))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, max_shrink_iters: 0, ..ProptestConfig::default() })]

    #[test]
    fn every_test_replays_and_searchers_agree(seed in any::<u64>()) {
        let src = random_program(seed);
        let reference = explore(&src, SearchKind::Dfs);
        for search in [SearchKind::Bfs, SearchKind::RandomPath, SearchKind::CovNew] {
            let other = explore(&src, search);
            prop_assert_eq!(&reference, &other, "dfs vs {}\n{}", search.name(), src);
        }
    }
}
